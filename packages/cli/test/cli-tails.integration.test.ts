// `shiplog events tail` and `shiplog notifications` as a user runs them: a subprocess against the emulator, the tails
// stopped with SIGINT after each new item was printed exactly once, and the inbox listed and marked read.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { emulator, shiplog, useCliEmulator } from "./cli-commands-setup.js";
import { CLI, type Run } from "./cli-process.js";

useCliEmulator();

/** Starts a tail, waits until `ready` lines are printed, calls `more`, waits for `total` lines, then sends SIGINT. */
async function tail(
  args: string[],
  token: string,
  expected: { ready: number; total: number; more: () => void; route?: string },
): Promise<Run & { lines: string[] }> {
  const env = { PATH: process.env.PATH ?? "", SHIPLOG_API_URL: emulator.url, SHIPLOG_TOKEN: token };
  const child = spawn(process.execPath, [CLI, ...args], { env });
  let stdout = "";
  let stderr = "";
  let triggered = false;
  const done = new Promise<number>((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : 0))));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve) => {
    const check = () => {
      // Complete lines only: a line not yet ended may still be arriving.
      const count = stdout.split("\n").slice(0, -1).filter(Boolean).length;
      if (!triggered && count >= expected.ready) {
        triggered = true;
        expected.more();
      }
      if (triggered && count >= expected.total) resolve();
    };
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    // A tail without backlog prints nothing: once its first poll is answered, what happens next is new.
    if (expected.ready === 0) {
      const seen = emulator.requests.count({ method: "GET", route: expected.route });
      const waitForPoll = setInterval(() => {
        if (emulator.requests.count({ method: "GET", route: expected.route }) > seen) {
          clearInterval(waitForPoll);
          check();
        }
      }, 50);
    }
  });
  child.kill("SIGINT");
  const code = await done;
  return { code, stdout, stderr, lines: stdout.split("\n").filter(Boolean) };
}

describe("tails: each new item once, a clean stop on SIGINT", () => {
  it("events tail repo:acme/web prints each pushed event once (table lines, then --json)", async () => {
    emulator.state.events.setPollInterval(1);
    const run = await tail(["events", "tail", "repo:acme/web"], emulator.tokens.admin!, {
      ready: 0,
      route: "/repos/:owner/:repo/events",
      total: 2,
      more: () => {
        emulator.activity.push({ actor: "octo", repo: "acme/web", commits: 2 });
        emulator.activity.star({ actor: "hubot", repo: "acme/web" });
      },
    });
    expect(run.code).toBe(0);
    expect(run.lines).toHaveLength(2);
    expect(run.lines[0]).toMatch(/PushEvent\s+octo\s+acme\/web\s+refs\/heads\/main/);
    expect(run.lines[1]).toMatch(/WatchEvent\s+hubot\s+acme\/web\s+started/);

    const json = await tail(["events", "tail", "repo:acme/web", "--backlog", "--json"], emulator.tokens.admin!, {
      ready: 2,
      total: 3,
      more: () => void emulator.activity.push({ actor: "hubot", repo: "acme/web" }),
    });
    expect(json.code).toBe(0);
    const ids = json.lines.map((line) => (JSON.parse(line) as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(3);
  });

  it("a tail whose reader went away (| head) stops cleanly at its next line: exit 0, no stack trace", async () => {
    emulator.state.events.setPollInterval(1);
    emulator.activity.star({ actor: "hubot", repo: "acme/web" });
    const env = { PATH: process.env.PATH ?? "", SHIPLOG_API_URL: emulator.url, SHIPLOG_TOKEN: emulator.tokens.admin! };
    const child = spawn(process.execPath, [CLI, "events", "tail", "repo:acme/web", "--backlog", "--json"], { env });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // The backlog is printed: the reader now closes its end, as `head -1` does, and a new event comes.
    await new Promise((resolve) => child.stdout.once("data", resolve));
    child.stdout.destroy();
    emulator.activity.push({ actor: "octo", repo: "acme/web" });
    expect(await done).toBe(0);
    expect(stderr).toBe("");
  });

  it("notifications tail prints each new thread once; list and read show and change the inbox", async () => {
    emulator.state.notifications.setPollInterval(1);
    const issue = emulator.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Checkout is slow" });
    const run = await tail(["notifications", "tail"], emulator.tokens.classic!, {
      ready: 0,
      route: "/notifications",
      total: 1,
      // A later second than the opening: timestamps have one-second resolution, so an update within the same second
      // as the last one leaves updated_at unchanged, on the service as here, and no poller can tell it apart.
      more: () => {
        emulator.clock.advance(2000);
        emulator.activity.mention({ actor: "hubot", repo: "acme/web", issue: issue.number, user: "octo" });
      },
    });
    expect(run.code).toBe(0);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toMatch(/unread\s+mention\s+acme\/web\s+Issue: Checkout is slow/);

    const list = await shiplog(["notifications", "list"], emulator.tokens.classic);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ID\s+UNREAD\s+REASON\s+REPOSITORY\s+TYPE\s+TITLE\s+UPDATED\n/);
    const [thread] = JSON.parse((await shiplog(["notifications", "list", "--json"], emulator.tokens.classic)).stdout) as {
      id: string;
      unread: boolean;
    }[];
    expect(thread!.unread).toBe(true);
    const read = await shiplog(["notifications", "read", thread!.id], emulator.tokens.classic);
    expect(read).toMatchObject({ code: 0, stdout: `thread ${thread!.id} marked read\n` });
    expect(JSON.parse((await shiplog(["notifications", "list", "--json"], emulator.tokens.classic)).stdout)).toEqual([]);
    const all = await shiplog(["notifications", "read", "--all", "--json"], emulator.tokens.classic);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toHaveProperty("status");
  });

  it("a fine-grained token is refused by the notification endpoints: exit 1, one line", async () => {
    const run = await shiplog(["notifications", "list"], emulator.tokens.admin);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split("\n")).toHaveLength(1);
  });
});
