// A child process running one server (the fake cluster or the emulator) for a benchmark, driven by the parent over
// Node's IPC channel: the parent calls a method by name, the child answers with its result. So each server's memory
// and CPU are its own, and the parent only measures.
import { fork, type ChildProcess } from "node:child_process";

interface Request {
  id: number;
  method: string;
  args: unknown[];
}
interface Reply {
  id: number;
  result?: unknown;
  error?: string;
}

/** The child side: answers calls with `handlers`. */
export function serve(handlers: Record<string, (...args: never[]) => unknown>): void {
  process.on("message", (message: Request) => {
    void (async () => {
      const reply: Reply = { id: message.id };
      try {
        const handler = handlers[message.method];
        if (!handler) throw new Error(`no method ${message.method}`);
        reply.result = await (handler as (...args: unknown[]) => unknown)(...message.args);
      } catch (error) {
        reply.error = (error as Error).stack ?? String(error);
      }
      process.send!(reply);
    })();
  });
  process.send!({ id: 0, result: "ready" });
}

/** A running host: call its methods, read its process. */
export interface Host {
  child: ChildProcess;
  call<T = unknown>(method: string, ...args: unknown[]): Promise<T>;
  stop(): Promise<void>;
}

/** Starts a host module (run with tsx) and waits until it is ready. */
export async function startHost(modulePath: string, nodeFlags: string[] = []): Promise<Host> {
  const child = fork(modulePath, [], {
    execArgv: [...nodeFlags, "--import", "tsx"],
    serialization: "advanced",
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 1;
  let ready!: () => void;
  const started = new Promise<void>((resolve) => (ready = resolve));
  child.on("message", (reply: Reply) => {
    if (reply.id === 0) return ready();
    const w = waiting.get(reply.id);
    waiting.delete(reply.id);
    if (reply.error !== undefined) w?.reject(new Error(reply.error));
    else w?.resolve(reply.result);
  });
  child.once("exit", (code) => {
    for (const w of waiting.values()) w.reject(new Error(`${modulePath} exited (${code})`));
  });
  await started;
  return {
    child,
    call: <T>(method: string, ...args: unknown[]) =>
      new Promise<T>((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id, method, args });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Peak resident set size of a process (VmHWM), in bytes. */
export async function peakRss(pid: number | undefined): Promise<number> {
  const { readFileSync } = await import("node:fs");
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** CPU time a process has used so far (user + system), in seconds. */
export async function cpuSeconds(pid: number | undefined): Promise<number> {
  const { readFileSync } = await import("node:fs");
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
