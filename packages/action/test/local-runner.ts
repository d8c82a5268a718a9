import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { runnerInputEnv, type ActionInputDeclaration } from "./runner-inputs.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The committed bundle that action.yml runs. */
export const BUNDLE_PATH = join(packageDir, "dist", "index.js");
/** The action's metadata (inputs and their defaults), at the repository's root. */
export const ACTION_YML_PATH = join(packageDir, "..", "..", "action.yml");

export interface LocalRunOptions {
  /**
   * The step's `with:`, by action.yml name (`tag-message`); passed as `INPUT_TAG-MESSAGE` as the runner does. Inputs
   * not given get their action.yml default (`${{ github.* }}` evaluated from `env` and `jobToken`), or an empty value.
   */
  inputs: Record<string, string>;
  /** GITHUB_* and other variables of the job (GITHUB_SHA, GITHUB_REPOSITORY, GITHUB_API_URL...). */
  env?: Record<string, string>;
  /** The job's token, what `${{ github.token }}` (the token input's default) resolves to. Default: `env.GITHUB_TOKEN`. */
  jobToken?: string;
  /** The action's metadata. Default: the repository's action.yml. */
  actionYml?: string;
  /** Working directory (GITHUB_WORKSPACE). Default: the current one. */
  cwd?: string;
  /** The node binary. Default: the one running this code. */
  node?: string;
  /** A command node is started under, with its arguments (for example `["prlimit", "--nofile=64"]`). */
  wrapper?: string[];
  bundle?: string;
  /** Kill the step after this long (a hang fails the test instead of stalling it). Default: no limit. */
  timeoutMs?: number;
}

/** A `::error title=...::message` (or warning/notice) line the action printed. */
export interface Annotation {
  level: "error" | "warning" | "notice";
  title?: string;
  message: string;
}

export interface LocalRunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** What the action wrote to GITHUB_OUTPUT. */
  outputs: Record<string, string>;
  /** What the action wrote to GITHUB_STEP_SUMMARY. */
  summary: string;
  annotations: Annotation[];
  /** The token values the action asked the runner to mask (`::add-mask::`). */
  masked: string[];
  wallMs: number;
  /** Whether the step was killed at `timeoutMs`. */
  timedOut: boolean;
}

/** The inputs action.yml declares, with their defaults. */
export async function readActionInputs(path = ACTION_YML_PATH): Promise<Record<string, ActionInputDeclaration>> {
  const metadata = parse(await readFile(path, "utf8")) as { inputs?: Record<string, ActionInputDeclaration | null> } | null;
  return Object.fromEntries(Object.entries(metadata?.inputs ?? {}).map(([name, declaration]) => [name, declaration ?? {}]));
}

/** Runs the bundled action as the runner does: a node process with every INPUT_* variable and the runner's files. */
export async function runBundledAction(options: LocalRunOptions): Promise<LocalRunResult> {
  const jobEnv = options.env ?? {};
  const inputEnv = runnerInputEnv(await readActionInputs(options.actionYml), options.inputs, {
    token: options.jobToken ?? jobEnv.GITHUB_TOKEN,
    env: jobEnv,
  });
  const dir = await mkdtemp(join(tmpdir(), "shiplog-action-"));
  const outputFile = join(dir, "output");
  const summaryFile = join(dir, "summary");
  await writeFile(outputFile, "");
  await writeFile(summaryFile, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? dir,
    RUNNER_TEMP: dir,
    GITHUB_WORKSPACE: options.cwd ?? process.cwd(),
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    ...jobEnv,
    ...inputEnv,
  };
  const started = performance.now();
  const { exitCode, stdout, stderr, timedOut } = await new Promise<{ exitCode: number; stdout: string; stderr: string; timedOut: boolean }>(
    (resolve) => {
      const [command, ...args] = [...(options.wrapper ?? []), options.node ?? process.execPath, options.bundle ?? BUNDLE_PATH];
      const execOptions = {
        env,
        cwd: options.cwd,
        encoding: "utf8" as const,
        maxBuffer: 64 * 1024 * 1024,
        timeout: options.timeoutMs ?? 0,
        killSignal: "SIGKILL" as const,
      };
      execFile(command!, args, execOptions, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ exitCode: code, stdout, stderr, timedOut: Boolean(error?.killed) });
      });
    },
  );
  const wallMs = performance.now() - started;
  try {
    return {
      exitCode,
      stdout,
      stderr,
      outputs: parseFileCommand(await readFile(outputFile, "utf8")),
      summary: await readFile(summaryFile, "utf8"),
      annotations: parseAnnotations(stdout),
      masked: [...stdout.matchAll(/^::add-mask::(.*)$/gm)].map((m) => m[1]!),
      wallMs,
      timedOut,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Reads `name<<delimiter\nvalue\ndelimiter` blocks (and `name=value` lines) of a GITHUB_OUTPUT file. */
export function parseFileCommand(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delimiter] = heredoc;
      const value: string[] = [];
      while (++i < lines.length && lines[i] !== delimiter) value.push(lines[i]!);
      out[name!] = value.join("\n");
    } else if (line.includes("=")) {
      out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return out;
}

/** Workflow command escaping, undone (`%25`, `%0D`, `%0A`, and `%3A`/`%2C` in properties). */
const unescapeCommand = (value: string) =>
  value.replace(/%0D/g, "\r").replace(/%0A/g, "\n").replace(/%3A/g, ":").replace(/%2C/g, ",").replace(/%25/g, "%");

/** The annotations in a step's output. */
export function parseAnnotations(stdout: string): Annotation[] {
  return [...stdout.matchAll(/^::(error|warning|notice)(?: ([^:]*))?::(.*)$/gm)].map((m) => {
    const title = /(?:^|,)title=([^,]*)/.exec(m[2] ?? "")?.[1];
    return {
      level: m[1] as Annotation["level"],
      ...(title !== undefined && { title: unescapeCommand(title) }),
      message: unescapeCommand(m[3]!),
    };
  });
}
