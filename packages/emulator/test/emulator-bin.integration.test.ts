// The standalone emulator as a user runs it: the root `pnpm emulator` script (the built bin, no rebuild, a one-line
// hint when there is no build), its seeded world read by the built shiplog CLI exactly as the READMEs show it, its
// banner, and a clean stop of the whole process tree on SIGINT and SIGTERM.
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SEEDED_DIGESTS } from "@shiplog/emulator";
import { runProcess, startProcess, type RunningProcess } from "../../../test/kit/process.js";
import { tempDir } from "../../../test/kit/temp-dir.js";
import { WAIT } from "../../../test/kit/wait.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = join(root, "packages/emulator/dist/cli.js");
const shiplog = join(root, "packages/cli/dist/cli.js");
const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.emulator!;

/** Whether a process is still there (signal 0 only checks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A process's parent, from /proc. */
function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** The emulator's pid and URL from its banner. */
async function bannerOf(emulator: Pick<RunningProcess, "line" | "stdout">): Promise<{ pid: number; url: string }> {
  const pid = Number(/^process (\d+):/.exec(await emulator.line(/^process \d+: stop it with/))![1]);
  const url = /listening on (\S+)/.exec(emulator.stdout())![1]!;
  return { pid, url };
}

/** `npx -y pnpm@10.34.8 emulator --port 0` in its own process group (a terminal's foreground job). */
function startPnpmEmulator() {
  const child = spawn("npx", ["-y", "pnpm@10.34.8", "emulator", "--port", "0"], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", () => undefined);
  const exited = new Promise<void>((done) => child.once("close", () => done()));
  const line = async (pattern: RegExp) => {
    await vi.waitFor(() => expect(stdout.split("\n").some((l) => pattern.test(l))).toBe(true), WAIT);
    return stdout.split("\n").find((l) => pattern.test(l))!;
  };
  return { child, exited, line, stdout: () => stdout };
}

/** Whether anything answers at the URL. */
async function answers(url: string): Promise<boolean> {
  return fetch(`${url}/rate_limit`).then(
    () => true,
    () => false,
  );
}

describe("the root `emulator` script", () => {
  it("runs the built bin with exec, with no build step", () => {
    expect(script).toBe("exec node --import ./packages/emulator/scripts/require-build.mjs packages/emulator/dist/cli.js");
  });

  it("says in one line to run pnpm build first when there is no build", async () => {
    // The script as written, in a checkout that has not been built.
    const checkout = tempDir("emulator-unbuilt-");
    mkdirSync(join(checkout, "packages/emulator/scripts"), { recursive: true });
    copyFileSync(join(root, "packages/emulator/scripts/require-build.mjs"), join(checkout, "packages/emulator/scripts/require-build.mjs"));
    const run = await runProcess("sh", ["-c", `${script} --port 0`], { cwd: checkout, env: { PATH: process.env.PATH } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim()).toBe(
      "shiplog-emulator: packages/emulator/dist/cli.js is missing: run `pnpm build` first (about a minute), then `pnpm emulator`",
    );
  });

  it("`pnpm emulator` stops with its emulator on SIGTERM to pnpm, and the whole tree on SIGINT to the group (Ctrl-C)", async () => {
    for (const [signal, target] of [
      ["SIGTERM", "pnpm"],
      ["SIGINT", "group"],
    ] as const) {
      const emulator = startPnpmEmulator();
      const { pid, url } = await bannerOf(emulator);
      const pnpm = parentOf(pid);
      expect(readFileSync(`/proc/${pnpm}/cmdline`, "utf8")).toContain("pnpm");
      expect(await answers(url)).toBe(true);
      if (target === "pnpm") process.kill(pnpm, signal);
      else process.kill(-emulator.child.pid!, signal);
      await vi.waitFor(() => expect({ emulator: alive(pid), pnpm: alive(pnpm) }).toEqual({ emulator: false, pnpm: false }), WAIT);
      expect(await answers(url)).toBe(false);
      // npx's own `sh -c` wrapper is left for the group signal only; end what is left of this run.
      if (target === "pnpm" && emulator.child.exitCode === null) emulator.child.kill("SIGTERM");
      await emulator.exited;
    }
  });
});

describe("the bin", () => {
  it("stops cleanly, exit 0, on SIGINT and on SIGTERM", async () => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      const emulator = startProcess(process.execPath, [bin, "--port", "0"]);
      const { pid, url } = await bannerOf(emulator);
      expect(pid).toBe(emulator.child.pid);
      expect(await emulator.stop(signal)).toBe(0);
      expect(await answers(url)).toBe(false);
    }
  });

  it("says how to see the tokens' values without printing them", async () => {
    const emulator = startProcess(process.execPath, [bin, "--port", "0"]);
    await bannerOf(emulator);
    await emulator.stop();
    expect(emulator.stdout()).toContain(
      "token values: start with --show-tokens to print them (or with --admin, then GET <admin API>/tokens)",
    );
    expect(emulator.stdout()).not.toContain("emu_fg_admin_0000000000000000");
  });

  it("refuses usage mistakes of the new flags with exit 2", async () => {
    for (const [args, text] of [
      [["--seed", "--no-seed"], "--seed and --no-seed"],
      [["--clock", "yesterday"], "--clock must be an ISO 8601 time"],
      [["--anonymous-rate-limit", "0"], "--anonymous-rate-limit must be a positive integer"],
    ] as const) {
      const run = await runProcess(process.execPath, [bin, "--port", "0", ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr.trim().split("\n"), args.join(" ")).toEqual([expect.stringContaining(text)]);
    }
  });
});

describe("the seeded world, read by the built shiplog CLI", () => {
  let emulator: RunningProcess;
  let url = "";
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    emulator = startProcess(process.execPath, [bin, "--port", "0", "--show-tokens", "--admin"]);
    url = (await bannerOf(emulator)).url;
    for (const match of emulator.stdout().matchAll(/^ {2}token (\S+) +\S+ +(\S+)$/gm)) tokens[match[1]!] = match[2]!;
  });
  afterAll(() => emulator.stop());

  /** Runs `shiplog args` against the emulator, stdout and stderr as a terminal shows them (stderr after). */
  async function shiplogRun(args: string[], token = tokens.admin!): Promise<string> {
    const run = await runProcess(process.execPath, [shiplog, ...args], {
      env: { PATH: process.env.PATH, SHIPLOG_API_URL: url, SHIPLOG_TOKEN: token },
    });
    expect(run.code, `shiplog ${args.join(" ")}: ${run.stderr}`).toBe(0);
    return (run.stdout + run.stderr).replaceAll(url, "http://127.0.0.1:8080").trimEnd();
  }

  /** The output the CLI README shows under `$ shiplog <command>` (the block's lines up to its end). */
  function readmeOutput(command: string): string {
    const readme = readFileSync(join(root, "packages/cli/README.md"), "utf8");
    const start = readme.indexOf(`$ shiplog ${command}\n`);
    expect(start, `the CLI README shows \`shiplog ${command}\``).toBeGreaterThan(-1);
    const body = readme.slice(start + `$ shiplog ${command}\n`.length);
    return body.slice(0, body.indexOf("```")).trimEnd();
  }

  it("prints the CLI README's records examples as the README shows them", async () => {
    for (const command of [
      `records deployments --org acme ${SEEDED_DIGESTS.web}`,
      `records deployments --org acme ${SEEDED_DIGESTS.web} --json`,
      `records storage --org acme ${SEEDED_DIGESTS.web}`,
      `records storage --org acme ${SEEDED_DIGESTS.web} --json`,
    ]) {
      expect(await shiplogRun(command.split(" ")), command).toBe(readmeOutput(command));
    }
  });

  it("has octo's unread thread, and the root README's records storage finds its record", async () => {
    // The CLI README's transcript (packages/cli/test/readme.integration.test.ts) adds a second thread before its `notifications
    // list`; the seeded world holds the first.
    const list = await shiplogRun(["notifications", "list"], tokens.classic);
    expect(list).toMatch(/^2 +yes +mention +acme\/web +Issue +Checkout is slow /m);
    expect(list.trimEnd().split("\n").at(-1)).toBe("1 unread notification thread");

    const storage = await shiplogRun(["records", "storage", "--org", "acme", SEEDED_DIGESTS.api]);
    expect(storage).toContain("ghcr.io/acme/api");
    expect(storage).toContain(`1 storage record of ${SEEDED_DIGESTS.api}`);
  });

  it("has the tag the CLI README's tag example moves, and activity in acme/web's feed", async () => {
    const ref = await fetch(`${url}/repos/acme/web/git/ref/tags/v1`, { headers: { authorization: `Bearer ${tokens.admin}` } });
    expect(ref.status).toBe(200);
    const events = (await (
      await fetch(`${url}/repos/acme/web/events`, { headers: { authorization: `Bearer ${tokens.admin}` } })
    ).json()) as {
      type: string;
    }[];
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set(["PushEvent", "WatchEvent", "CreateEvent", "IssuesEvent", "IssueCommentEvent"]),
    );
  });
});
