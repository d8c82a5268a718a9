// Programs run as a user runs them: a child process with only the environment given, its output collected.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

/** A finished process: its exit code and what it printed. */
export interface Run {
  /** null when a signal ended it. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of a process. */
export interface ProcessOptions {
  /** Its whole environment when given (add PATH when it needs one); this process's environment otherwise. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Standard input, written whole. */
  input?: string;
  /** A deadline: past it the process is killed (SIGKILL) and its run ends with code null. */
  timeoutMs?: number;
}

/** Runs `file args` to its end without blocking this process (an emulator or a fake cluster may run in it). */
export function runProcess(file: string, args: readonly string[], options: ProcessOptions = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      {
        encoding: "utf8",
        env: options.env ?? process.env,
        maxBuffer: 64 * 1024 * 1024,
        ...(options.cwd ? { cwd: options.cwd } : {}),
        ...(options.timeoutMs ? { timeout: options.timeoutMs, killSignal: "SIGKILL" as const } : {}),
      },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }),
    );
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/** A process started by `startProcess`. */
export interface RunningProcess {
  child: ChildProcess;
  /** Everything printed so far (standard output, then standard error). */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
  /** SIGTERM (or `signal`) unless it has ended, then its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** The first line of standard output (from the start) matching `pattern`; rejects if the process exits first. */
  line(pattern: RegExp): Promise<string>;
}

/** Options of a long-running process. */
export interface StartOptions extends Omit<ProcessOptions, "input" | "timeoutMs"> {
  /** Every line of its standard output, as it comes. */
  onLine?: (line: string) => void;
}

/** Starts `file args` and collects its output; `stop()` ends it. */
export function startProcess(file: string, args: readonly string[], options: StartOptions = {}): RunningProcess {
  const child = spawn(file, args, {
    env: options.env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let stdout = "";
  let stderr = "";
  const lines: string[] = [];
  const waiting = new Set<() => void>();
  createInterface({ input: child.stdout! }).on("line", (line) => {
    stdout += `${line}\n`;
    lines.push(line);
    options.onLine?.(line);
    for (const check of waiting) check();
  });
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const output = () => `${stdout}${stderr}`;
  return {
    child,
    exited,
    output,
    stdout: () => stdout,
    stderr: () => stderr,
    line: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find((line) => pattern.test(line));
          if (found === undefined) return false;
          waiting.delete(check);
          resolve(found);
          return true;
        };
        if (check()) return;
        waiting.add(check);
        void exited.then((code) => {
          if (waiting.delete(check)) reject(new Error(`exited (${code}) before printing a line matching ${pattern}:\n${output()}`));
        });
      }),
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
