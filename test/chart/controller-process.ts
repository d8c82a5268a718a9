// Runs the controller as a separate process (the built entry point or the image's bundle) and finds the address of
// its health server in its JSON log.
import { spawn, type ChildProcess } from "node:child_process";

/** A running controller process. */
export interface ControllerProcess {
  child: ChildProcess;
  /** Base URL of /healthz /readyz /metrics, once the process logged it. */
  url: Promise<string>;
  /** Everything printed so far (stdout then stderr). */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `command` with exactly `env` (plus PATH) and watches its log for the health server's address. */
export function startControllerProcess(command: readonly string[], env: Record<string, string>): ControllerProcess {
  const child = spawn(command[0]!, command.slice(1), { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"health and metrics server listening"/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    void exited.then((code) => reject(new Error(`controller exited (${code}) before its health server listened:\n${stdout}\n${stderr}`)));
  });
  url.catch(() => undefined);
  return {
    child,
    url,
    output: () => `${stdout}\n${stderr}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Polls `url` until it answers `status`; throws with the last answer after `deadlineMs`. */
export async function waitForStatus(url: string, status: number, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  let last = "no answer";
  for (;;) {
    try {
      const response = await fetch(url);
      last = `${response.status} ${await response.text()}`;
      if (response.status === status) return;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > end) throw new Error(`${url} did not answer ${status} in time; last: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
