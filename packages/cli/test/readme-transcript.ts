// The CLI README's "Each command, as run" section, each command run for real (`node dist/cli.js`, a subprocess)
// against an emulator seeded as `shiplog-emulator` seeds it. packages/cli/test/readme.integration.test.ts runs it and fails when
// the README differs (timestamps, object ids and rate-limit figures aside); to write it into the README again:
//   npx tsx packages/cli/test/readme-transcript.ts --write
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ShiplogClient } from "@shiplog/client";
import { SEEDED_DIGESTS, SEEDED_IMPORT_AT, seedDemoWorld, startEmulator } from "@shiplog/emulator";
import { runProcess } from "../../../test/kit/process.js";
import { tempDir } from "../../../test/kit/temp-dir.js";
import { CLI } from "./cli-process.js";

export const README = fileURLToPath(new URL("../README.md", import.meta.url));
/** Where the generated section starts; it runs to the end of the README. */
export const SECTION = "## Each command, as run";

/**
 * What may differ between two runs of the same commands: timestamps, git object ids (a tag object's holds its
 * tagger's date), and the rate limit left (tails poll as often as they poll).
 */
export function normalize(text: string): string {
  return text
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, "<time>")
    .replace(/\b[0-9a-f]{40}\b/g, "<sha>")
    .replace(/\b[0-9a-f]{12}\b/g, "<sha12>")
    .replace(/\b\d+ of (\d+) left\b/g, "<n> of $1 left")
    .replace(/"(remaining|used|reset)": \d+/g, '"$1": <n>');
}

/** The section, generated: the commands run against a fresh seeded emulator. */
export async function cliReadmeSection(): Promise<string> {
  const emulator = await startEmulator();
  try {
    return await transcript(emulator);
  } finally {
    if (process.env.SHIPLOG_TRANSCRIPT_DEBUG) process.stderr.write("transcript: stopping the emulator\n");
    await emulator.stop();
    if (process.env.SHIPLOG_TRANSCRIPT_DEBUG) process.stderr.write("transcript: stopped\n");
  }
}

async function transcript(emulator: Awaited<ReturnType<typeof startEmulator>>): Promise<string> {
  seedDemoWorld(emulator);
  const dir = tempDir("shiplog-readme-");
  const digest = SEEDED_DIGESTS.web;
  const web = emulator.state.git.repository("acme", "web")!;
  const head = web.head()!;
  const deployments = Array.from({ length: 2500 }, (_, i) => ({ name: "ghcr.io/acme/web", digest, deployment_name: `batch/web-${i}` }));
  writeFileSync(join(dir, "deployments.json"), JSON.stringify({ logical_environment: "staging", deployments }));
  const record = (name: string) => ({
    name: "ghcr.io/acme/web",
    digest,
    status: "deployed",
    logical_environment: "staging",
    cluster: "stage-eu-1",
    deployment_name: name,
    github_repository: "web",
  });
  writeFileSync(join(dir, "deployment-records.json"), `${JSON.stringify([record("shop/web-canary"), record("shop/web-blue")], null, 2)}\n`);

  const env = (token: string | undefined) => ({
    PATH: process.env.PATH ?? "",
    SHIPLOG_API_URL: emulator.url,
    ...(token && { SHIPLOG_TOKEN: token }),
  });
  const out: string[] = [
    SECTION,
    "",
    "The output below was taken from a run against the emulator as `shiplog-emulator` seeds it (`pnpm emulator`), and is",
    "checked: `packages/cli/test/readme.integration.test.ts` runs every command again and fails when this section differs (timestamps,",
    "object ids and rate-limit figures aside); `npx tsx packages/cli/test/readme-transcript.ts --write` writes it anew.",
    "The tests in `packages/cli/test/cli-*.test.ts` run the same commands as subprocesses, with their edge cases.",
    "",
    "```console",
    "$ export SHIPLOG_API_URL=http://127.0.0.1:8080 SHIPLOG_TOKEN=...",
    "```",
    "",
  ];
  const shownArg = (a: string) => (a.includes(dir) ? a.replace(`${dir}/`, "") : /[\s'|&$(){}[\]*?!]/.test(a) ? `'${a}'` : a);
  const show = (args: string[], text: string, code: number | null, whole = false) => {
    const lines = text.trimEnd().replaceAll(emulator.url, "http://127.0.0.1:8080").split("\n");
    // Long JSON is cut to its start: the README shows its shape, the command prints it all.
    const shownLines = !whole && lines.length > 24 ? [...lines.slice(0, 20), `… (${lines.length - 20} more lines)`] : lines;
    out.push(
      "```console",
      `$ shiplog ${args.map(shownArg).join(" ")}`,
      ...shownLines.filter((l, i) => l !== "" || i > 0),
      ...(code ? ["$ echo $?", String(code)] : []),
      "```",
      "",
    );
  };
  const say = (...lines: string[]) => out.push(...lines, "");

  // The emulator runs in this process: the CLI must run asynchronously, or nobody would answer it.
  async function exec(file: string, args: string[], token: string | undefined): Promise<{ text: string; code: number | null }> {
    if (process.env.SHIPLOG_TRANSCRIPT_DEBUG) process.stderr.write(`transcript: ${args.slice(-4).join(" ")}\n`);
    const { code, stdout, stderr } = await runProcess(file, args, { env: env(token) });
    return { text: stdout + stderr, code };
  }
  /** Runs the CLI with the admin's token unless given one (null: no token); stdout, then stderr. */
  async function run(args: string[], given?: string | null, whole = false): Promise<void> {
    const token = given === null ? undefined : (given ?? emulator.tokens.admin);
    const { text, code } = await exec(process.execPath, [CLI, ...args], token);
    show(args, text, code, whole);
  }
  /** stdout and stderr interleaved as a terminal shows them. */
  async function runWithStderr(args: string[], token: string | undefined = emulator.tokens.admin!): Promise<void> {
    const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    const { text, code } = await exec("sh", ["-c", `"${process.execPath}" "${CLI}" ${quoted} 2>&1`], token);
    show(args, text, code);
  }
  async function tail(args: string[], token: string, route: string, more: () => void, lines: number): Promise<void> {
    const polls = () => emulator.requests.count({ method: "GET", route });
    const before = polls();
    const child = spawn(process.execPath, [CLI, ...args], { env: env(token) });
    let text = "";
    child.stdout.on("data", (c: Buffer) => (text += c.toString()));
    child.stderr.on("data", (c: Buffer) => (text += c.toString()));
    // A deadline, so a tail that never prints what is awaited fails the run instead of hanging it.
    const deadline = Date.now() + 60_000;
    const wait = async (condition: () => boolean, what: string) => {
      while (!condition()) {
        if (Date.now() > deadline) {
          child.kill("SIGKILL");
          throw new Error(`shiplog ${args.join(" ")}: no ${what} within 60 s (printed: ${JSON.stringify(text)})`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    // Once the first poll is answered, what happens next is new to the tail: a second later, since the inbox's
    // Last-Modified has a resolution of a second (an update in the same second would be "not modified").
    await wait(() => polls() > before, "first poll");
    await new Promise((r) => setTimeout(r, 1100));
    more();
    await wait(() => text.split("\n").slice(0, -1).filter(Boolean).length >= lines, `${lines} line(s)`);
    child.kill("SIGINT");
    const code = await new Promise<number>((r) => child.on("exit", (c) => r(c ?? 0)));
    show(args, `${text}^C`, code);
  }

  say("### help");
  await run(["--help"], null, true);
  await run(["records", "storage", "--help"], null, true);
  await run(["--version"], null);

  say("### records");
  await runWithStderr(["records", "deployments", "--org", "acme", digest]);
  await run(["records", "deployments", "--org", "acme", digest, "--json"]);
  await runWithStderr(["records", "storage", "--org", "acme", digest]);
  await run(["records", "storage", "--org", "acme", digest, "--json"]);
  await run(["records", "set-cluster", "--org", "acme", "--cluster", "stage-1", "--file", join(dir, "deployments.json")]);
  say("On a terminal the call draws a progress bar on stderr while the chunks go out:");
  const tty = (
    await exec(
      "script",
      [
        "-qec",
        `"${process.execPath}" "${CLI}" records set-cluster --org acme --cluster stage-2 --file ${join(dir, "deployments.json")}`,
        "/dev/null",
      ],
      emulator.tokens.admin,
    )
  ).text;
  out.push("```console", "$ shiplog records set-cluster --org acme --cluster stage-2 --file deployments.json", lastFrame(tty), "```", "");
  say("A list prints at most `--limit` items (30 unless told), says on stderr how many it left out, and takes filters:");
  await runWithStderr(["records", "deployments", "--org", "acme", digest, "--limit", "3"]);
  await runWithStderr(["records", "deployments", "--org", "acme", digest, "--cluster", "prod-eu-1"]);
  say("One record from options, or several from a file (an object or an array, each as the service's call takes it):");
  await runWithStderr([
    "records",
    "create-storage",
    "--org",
    "acme",
    "--name",
    "ghcr.io/acme/web",
    "--digest",
    digest,
    "--registry-url",
    "https://registry.example.com",
    "--repository",
    "acme/web",
    "--artifact-version",
    "1.4.0",
    "--github-repository",
    "web",
  ]);
  out.push("```console", "$ cat deployment-records.json", readFileSync(join(dir, "deployment-records.json"), "utf8").trimEnd(), "```", "");
  await runWithStderr(["records", "create-deployment", "--org", "acme", "--file", join(dir, "deployment-records.json")]);

  say("### output: --json fields, -o yaml, --query");
  say(
    "`--json` prints the service's answer; `--json a,b` those fields of each item; `-o yaml` YAML; `-q/--query` a",
    "[JSONata](https://jsonata.org) expression over the JSON, strings printed as they are:",
  );
  await run(["records", "storage", "--org", "acme", digest, "--json", "name,registry_url,status"]);
  await run(["records", "deployments", "--org", "acme", digest, "--cluster", "prod-eu-1", "-o", "yaml"]);
  await run([
    "records",
    "deployments",
    "--org",
    "acme",
    digest,
    "--cluster",
    "stage-eu-1",
    "--query",
    'deployment_records.(deployment_name & " " & cluster)',
  ]);
  await run(["records", "storage", "--org", "acme", digest, "--json", "nmae"]);

  say("### tag");
  await run(["tag", "create", "acme/web", "v1.4.0", "--object", head, "--derived-tags", "major-minor", "--message", "Release 1.4.0"]);
  await run([
    "tag",
    "create",
    "acme/web",
    "v1.4.0",
    "--object",
    head,
    "--derived-tags",
    "major-minor",
    "--message",
    "Release 1.4.0",
    "--json",
  ]);
  await run(["tag", "create", "acme/web", "v1.4.0", "--object", web.commits()[0]!.sha, "--message", "Release 1.4.0"]);
  await runWithStderr(["tag", "list", "acme/web"]);
  await run(["tag", "show", "acme/web", "v1.4.0"]);
  await run(["tag", "delete", "acme/web", "v1.4"]);
  await run(["tag", "delete", "acme/web", "v1.4", "--yes"]);

  say("### events");
  await runWithStderr(["events", "list", "repo:acme/web", "--limit", "3"]);
  emulator.state.events.setPollInterval(1);
  emulator.state.notifications.setPollInterval(1);
  await tail(
    ["events", "tail", "repo:acme/web"],
    emulator.tokens.admin!,
    "/repos/:owner/:repo/events",
    () => {
      emulator.activity.push({ actor: "octo", repo: "acme/web", commits: 2 });
      emulator.activity.star({ actor: "octo", repo: "acme/web" });
    },
    2,
  );
  await tail(
    ["events", "tail", "org:acme", "--json", "type,actor"],
    emulator.tokens.admin!,
    "/orgs/:org/events",
    () => void emulator.activity.createBranch({ actor: "octo", repo: "acme/web", ref: "feature/search" }),
    1,
  );

  say("### notifications");
  const classic = emulator.tokens.classic!;
  const issue = emulator.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Search times out" });
  await tail(
    ["notifications", "tail"],
    classic,
    "/notifications",
    () => void emulator.activity.mention({ actor: "hubot", repo: "acme/web", issue: issue.number, user: "octo" }),
    1,
  );
  await runWithStderr(["notifications", "list"], classic);
  await run(["notifications", "list", "--json", "id,reason,unread"], classic);
  const threads = [];
  for await (const thread of new ShiplogClient({ baseUrl: emulator.url, token: classic, retry: false }).notifications.list())
    threads.push(thread);
  const [newest, older] = threads;
  if (newest) await run(["notifications", "read", newest.id], classic);
  if (newest) await run(["notifications", "subscribe", newest.id, "--ignore"], classic);
  if (newest) await run(["notifications", "unsubscribe", newest.id], classic);
  if (older) await run(["notifications", "done", older.id], classic);
  await run(["notifications", "read", "--all"], classic);

  say("### import (retired)");
  say(
    "The seeded import of acme/api answers on an emulator clock before the retirement (`POST /clock` on the admin API;",
    "here set to the seed's `2024-03-01T12:00:00Z`). The warning is said once: a marker under `$XDG_STATE_HOME/shiplog`",
    "(else `~/.local/state/shiplog`) keeps it from repeating; with neither set, as here, it is said each time.",
  );
  emulator.clock.set(SEEDED_IMPORT_AT, { freeze: true });
  await runWithStderr(["import", "status", "acme/api"], classic);
  await run(["import", "status", "acme/api", "--json"], classic);
  await runWithStderr(["import", "status", "acme/web"], classic);
  emulator.imports.startTimer(800);
  await runWithStderr(["import", "follow", "acme/api", "--interval", "1"], classic);
  emulator.imports.stopTimer();
  emulator.clock.reset();

  say("### auth status");
  await run(["auth", "status"], classic);
  await run(["auth", "status", "--json", "credentials,token_type,rate_limit"]);

  say("### App credentials");
  say("With `SHIPLOG_TOKEN` unset, the App's id and key file:");
  const keyFile = join(dir, "app.pem");
  writeFileSync(keyFile, emulator.apps.privateKey(1001001), { mode: 0o600 });
  await runWithStderr(["records", "storage", "--org", "acme", digest, "--app-id", "1001001", "--app-private-key-file", keyFile], "");
  say("The emulator's request log of that run: the installation found from `--org`, its token minted, then used:");
  out.push(
    "```console",
    ...emulator.requests
      .list()
      .slice(-3)
      .map((r) => `${r.method} ${r.url.replace(/\?.*$/, "")} ${r.status} ${r.tokenName ?? "(the App's JWT)"}`),
    "```",
    "",
  );
  await run(["records", "storage", "--org", "acme", digest, "--app-id", "1001001"], null);
  say("With `SHIPLOG_TOKEN` still set:");
  await run(["records", "storage", "--org", "acme", digest, "--app-id", "1001001", "--app-private-key-file", keyFile]);

  say("### permissions");
  await run(["permissions", "PATCH", "/repos/acme/web/git/refs/tags/v1"], null);
  await run(["permissions", "GET", "/repos/acme/web/git/matching-refs/tags/v1", "--json"], null);

  say("### errors");
  await run(["records", "storage", digest]);
  await run(["tag", "create", "acme/web", "v1", "--object", "abc"]);
  await run(["records", "storage", "--org", "acme", digest], emulator.tokens.noGrants);
  await run(["records", "storage", "--org", "acme", digest], null);
  await run(["events", "tail", "repos:acme/web"]);
  await run(["records", "set-cluster", "--org", "acme", "--cluster", "x", "--fil", "deployments.json"]);
  await run(["records", "storage", "--org", "acme", digest, "--limit", "0"]);
  return `${out.join("\n").trimEnd()}\n`;
}

/** A terminal escape (CSI sequence, or cursor save/restore); ESC is written by code so the pattern holds no control character. */
const TERMINAL_ESCAPE = new RegExp(`${String.fromCharCode(27)}(\\[[0-9;?]*[A-Za-z]|[78])`, "g");

/** What a terminal shows at the end: the bar's last frame (redrawn with \r), then the table. */
function lastFrame(raw: string): string {
  const clean = raw.replace(TERMINAL_ESCAPE, "\n");
  const bar = clean.match(/[=-]{40} 2500\/2500 entries [^\n]*/g)?.at(-1) ?? "";
  const table = clean.split(/\r?\n/).filter((l) => /^(CLUSTER|stage-2)/.test(l.replace(/^.*\r/, "")));
  return [bar.trim(), ...table.map((l) => l.replace(/^.*\r/, ""))].join("\n");
}

/** The README's section as it is now. */
export function readmeSection(): string {
  const readme = readFileSync(README, "utf8");
  const start = readme.indexOf(SECTION);
  if (start === -1) throw new Error(`${README} has no "${SECTION}" section`);
  return readme.slice(start);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const section = await cliReadmeSection();
  if (process.argv.includes("--write")) {
    const readme = readFileSync(README, "utf8");
    const start = readme.indexOf(SECTION);
    writeFileSync(README, `${(start === -1 ? `${readme.trimEnd()}\n\n` : readme.slice(0, start)) + section}`);
  } else {
    process.stdout.write(section);
  }
}
