import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";

// The README's "Tailing events" example, run as written against the emulator.
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator();
  emu.state.events.setPollInterval(1);
});
afterAll(() => emu.stop());

function readmeExample(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Tailing events"));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error("README has no ts block under ## Tailing events");
  return match[1];
}

async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

it("the README example tails an organization's events, prints each new one once, and stops cleanly on SIGINT", async () => {
  // Under node_modules so that `@shiplog/client` resolves as it would in a user's project.
  const dir = join(root, "node_modules", ".cache", "shiplog-readme");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "tail-org-events.mts");
  writeFileSync(file, readmeExample());

  emu.activity.push({ actor: "hubot", repo: "acme/web" }); // before the start: not printed (start: "now")
  const child = spawn(join(root, "node_modules", ".bin", "tsx"), [file], {
    env: { ...process.env, SERVICE_URL: emu.url, SERVICE_TOKEN: emu.tokens["admin"] },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

  try {
    await until(() => emu.requests.count({ route: "/orgs/:org/events" }) >= 1, "the first poll");
    emu.activity.star({ actor: "octo", repo: "acme/web" });
    emu.activity.createBranch({ actor: "hubot", repo: "acme/web", ref: "release-2" });
    emu.activity.push({ actor: "octo", repo: "acme/web", commits: 3 });
    await until(() => out.trim().split("\n").filter(Boolean).length >= 3, `three lines (stderr: ${err})`);
    // Give it one more poll: nothing is printed twice.
    const polls = emu.requests.count({ route: "/orgs/:org/events" });
    await until(() => emu.requests.count({ route: "/orgs/:org/events" }) > polls, "another poll");
  } finally {
    child.kill("SIGINT");
  }
  expect(await exited).toBe(0);
  const lines = out.trim().split("\n");
  expect(lines.map((line) => line.split(" ").slice(1))).toEqual([
    ["octo", "WatchEvent", "acme/web"],
    ["hubot", "CreateEvent", "acme/web"],
    ["octo", "PushEvent", "acme/web"],
  ]);
  expect(lines[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z /);
});
