import { readFileSync } from "node:fs";
import { ShiplogClient } from "@shiplog/client";
import { UsageError } from "./cli-errors.js";

/** The options every command that talks to the service takes. */
export interface ConnectionOptions {
  apiUrl?: string;
  tokenFile?: string;
}

/** Where a command finds its settings besides its options. */
export type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The token: `--token-file` (or SHIPLOG_TOKEN_FILE), else SHIPLOG_TOKEN. Never an option of its own, so it never
 * shows in a process list or a shell history.
 */
export function readToken(options: ConnectionOptions, env: Environment): string | undefined {
  const file = options.tokenFile ?? env["SHIPLOG_TOKEN_FILE"];
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw new UsageError(`--token-file ${JSON.stringify(file)}: cannot read it (${code})`);
    }
    const token = text.trim();
    if (token === "") throw new UsageError(`--token-file ${JSON.stringify(file)} is empty: put the token in it`);
    return token;
  }
  const token = env["SHIPLOG_TOKEN"]?.trim();
  return token ? token : undefined;
}

/** A client for the service named by `--api-url` (or SHIPLOG_API_URL), with the token. */
export function connect(options: ConnectionOptions, env: Environment, userAgent: string): ShiplogClient {
  const baseUrl = options.apiUrl ?? env["SHIPLOG_API_URL"];
  const token = readToken(options, env);
  try {
    return new ShiplogClient({ ...(baseUrl && { baseUrl }), ...(token && { token }), userAgent });
  } catch (error) {
    // The client refuses a bad base URL before anything is sent: that is the user's --api-url.
    const message = error instanceof Error ? error.message.split("\n").join("; ") : String(error);
    throw new UsageError(`--api-url: ${message.replace(/^.*?baseUrl:?\s*/, "")}`);
  }
}
