import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { ROOT, blocksUnder, writeModule } from "./kit/readme.js";
import { WAIT } from "./kit/wait.js";

// The client README's "Tailing events" example, run as written against the emulator.
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator();
  emu.state.events.setPollInterval(1);
});
afterAll(() => emu.stop());

/** Waits until `condition` holds; past the deadline the error names `what` it waited for. */
function until(condition: () => boolean, what: string): Promise<void> {
  return vi.waitFor(() => {
    if (!condition()) throw new Error(`timed out waiting for ${what}`);
  }, WAIT);
}

/** Runs the example as its own process until `whileRunning` is done, then sends SIGINT; its output lines. */
async function runExample(file: string, checkpointFile: string, whileRunning: (out: () => string[]) => Promise<void>): Promise<string[]> {
  const child = spawn(join(ROOT, "node_modules", ".bin", "tsx"), [file], {
    env: { ...process.env, SHIPLOG_API_URL: emu.url, SHIPLOG_TOKEN: emu.tokens.admin, CHECKPOINT_FILE: checkpointFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  // Complete lines only: a line not yet ended may still be arriving.
  const lines = () => out.split("\n").slice(0, -1).filter(Boolean);
  try {
    await whileRunning(lines);
  } catch (error) {
    throw new Error(`${(error as Error).message} (stderr: ${err})`);
  } finally {
    child.kill("SIGINT");
  }
  expect(await exited).toBe(0);
  return lines();
}

it("the README example tails an organization's events, prints each once, stops cleanly on SIGINT, and resumes after a restart", async () => {
  // Under node_modules so that `@shiplog/client` resolves as it would in a user's project.
  const file = writeModule("tail-org-events", blocksUnder("packages/client/README.md", "Tailing events", "ts")[0]!.code);
  const checkpointFile = join(dirname(file), `acme-events-${process.pid}.checkpoint.json`);
  rmSync(checkpointFile, { force: true });
  const polls = () => emu.requests.list({ route: "/orgs/:org/events" });
  const describe = (line: string) => line.split(" ").slice(1);

  emu.activity.push({ actor: "hubot", repo: "acme/web" }); // before the first start: not printed (start: "now")
  const first = await runExample(file, checkpointFile, async (lines) => {
    await until(() => polls().length >= 1, "the first poll");
    emu.activity.star({ actor: "octo", repo: "acme/web" });
    emu.activity.createBranch({ actor: "hubot", repo: "acme/web", ref: "release-2" });
    emu.activity.push({ actor: "octo", repo: "acme/web", commits: 3 });
    await until(() => lines().length >= 3, "three lines");
    // Give it one more poll: nothing is printed twice.
    const count = polls().length;
    await until(() => polls().length > count, "another poll");
  });
  expect(first.map(describe)).toEqual([
    ["octo", "WatchEvent", "acme/web"],
    ["hubot", "CreateEvent", "acme/web"],
    ["octo", "PushEvent", "acme/web"],
  ]);
  expect(first[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z /);

  // While it is stopped, more happens: the next run prints exactly that, and nothing of the first run again.
  emu.activity.star({ actor: "hubot", repo: "acme/web" });
  emu.activity.createBranch({ actor: "octo", repo: "acme/web", ref: "hotfix" });
  const second = await runExample(file, checkpointFile, async (lines) => {
    await until(() => lines().length >= 2, "the events since the first run");
    const count = polls().length;
    await until(() => polls().length > count, "another poll");
  });
  expect(second.map(describe)).toEqual([
    ["hubot", "WatchEvent", "acme/web"],
    ["octo", "CreateEvent", "acme/web"],
  ]);

  // Nothing happened since: the third run's first request is conditional and answered 304.
  const before = polls().length;
  const third = await runExample(file, checkpointFile, async () => {
    await until(() => polls().length > before, "the first poll of the third run");
  });
  expect(third).toEqual([]);
  expect(polls()[before]?.status).toBe(304);
  rmSync(checkpointFile, { force: true });
});
