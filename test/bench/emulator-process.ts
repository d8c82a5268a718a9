// Starts the built emulator as its own process, so a benchmark measures the caller, not both.
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

export interface EmulatorProcess {
  url: string;
  /** The admin API's address, when started with `--admin`. */
  adminUrl: string | undefined;
  tokens: Record<string, string>;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Runs `shiplog-emulator --port 0 --show-tokens` and waits for the URL and tokens it prints. */
export async function startEmulatorProcess(args: string[] = []): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [resolve(repoRoot, "packages/emulator/dist/cli.js"), "--port", "0", "--show-tokens", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const tokens: Record<string, string> = {};
  let output = "";
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.once("exit", (code) => reject(new Error(`emulator exited early (${code})`)));
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      // One line per token: name, type, value.
      for (const match of output.matchAll(/^\s*token (\S+)[ \t]+\S+[ \t]+(\S+)$/gm)) tokens[match[1]!] = match[2]!;
      const found = /listening on (\S+)/.exec(output);
      if (found && output.includes("noGrants")) resolveUrl(found[1]!);
    });
  });
  return {
    url,
    adminUrl: /admin API on (\S+)/.exec(output)?.[1],
    tokens,
    child,
    stop: () =>
      new Promise<void>((done) => {
        child.once("exit", () => done());
        child.kill("SIGTERM");
      }),
  };
}
