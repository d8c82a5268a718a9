// Start-up failures that the operator's settings cause: reported as one line naming the setting, exit code 2.
import { ShiplogError } from "@shiplog/client";

/** Stable codes of start-up failures. */
export type StartupErrorCode = "kubeconfig_unusable" | "http_listen_failed";

/** A setting that passed validation but does not work on this machine (a missing file, a port in use). */
export class StartupError extends ShiplogError {
  constructor(
    code: StartupErrorCode,
    /** The setting to change, as `--flag / VARIABLE`. */
    readonly setting: string,
    /** The rule it broke, e.g. `readable file`. */
    readonly rule: string,
    detail: string,
  ) {
    super(code, `cannot start: ${setting}: ${detail} [rule: ${rule}]`);
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), setting: this.setting, rule: this.rule };
  }
}

const HTTP_SETTINGS = "--http-host / SHIPLOG_HTTP_HOST, --http-port / SHIPLOG_HTTP_PORT";

/** The health server could not listen: says which setting to change, and why, without a stack. */
export function listenError(error: unknown, host: string, port: number): StartupError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (code === "EADDRINUSE")
    return new StartupError("http_listen_failed", "--http-port / SHIPLOG_HTTP_PORT", "free port", `${where} is already in use`);
  if (code === "EACCES") {
    return new StartupError(
      "http_listen_failed",
      "--http-port / SHIPLOG_HTTP_PORT",
      "permitted port",
      `not permitted to listen on ${where} (ports below 1024 need privileges)`,
    );
  }
  if (code === "EADDRNOTAVAIL") {
    return new StartupError(
      "http_listen_failed",
      "--http-host / SHIPLOG_HTTP_HOST",
      "address of this machine",
      `${host} is not an address of this machine`,
    );
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new StartupError(
      "http_listen_failed",
      "--http-host / SHIPLOG_HTTP_HOST",
      "resolvable host name",
      `${host} does not resolve (${code})`,
    );
  }
  return new StartupError(
    "http_listen_failed",
    HTTP_SETTINGS,
    "listenable address",
    `cannot listen on ${where}: ${code ?? (error as Error)?.message ?? String(error)}`,
  );
}
