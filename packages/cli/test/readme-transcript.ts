// Prints the CLI README's examples as Markdown, each command run for real against a seeded emulator:
//   npx tsx packages/cli/test/readme-transcript.ts > /tmp/transcript.md
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ShiplogClient } from "@shiplog/client";
import { startEmulator } from "@shiplog/emulator";
import { runProcess } from "../../../test/kit/process.js";
import { CLI } from "./cli-process.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const emulator = await startEmulator();
const dir = tempDir("shiplog-readme-");
const digest = `sha256:${createHash("sha256").update("web image").digest("hex")}`;
const head = emulator.state.git.repository("acme", "web")!.head()!;
const admin = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
await admin.artifacts.createStorageRecord({
  org: "acme",
  name: "ghcr.io/acme/web",
  digest,
  version: "1.4.0",
  registry_url: "https://ghcr.io",
  repository: "acme/web",
  github_repository: "web",
});
await admin.artifacts.setClusterDeploymentRecords({
  org: "acme",
  cluster: "prod-eu-1",
  logical_environment: "production",
  physical_environment: "eu-west-1",
  deployments: [{ name: "ghcr.io/acme/web", digest, deployment_name: "shop/web", github_repository: "web", tags: { team: "shop" } }],
});
emulator.state.git.repository("acme", "web")!.createRef("refs/tags/v1", emulator.state.git.repository("acme", "web")!.commits()[0]!.sha);
const deployments = Array.from({ length: 2500 }, (_, i) => ({ name: "ghcr.io/acme/web", digest, deployment_name: `batch/web-${i}` }));
writeFileSync(join(dir, "deployments.json"), JSON.stringify({ logical_environment: "staging", deployments }));

const env = (token: string | undefined) => ({
  PATH: process.env.PATH ?? "",
  SHIPLOG_API_URL: emulator.url,
  ...(token && { SHIPLOG_TOKEN: token }),
});
const out: string[] = [];
const show = (args: string[], text: string, code: number | null, whole = false) => {
  const shown = args.map((a) => (a.includes(dir) ? a.replace(`${dir}/`, "") : /\s/.test(a) ? `'${a}'` : a)).join(" ");
  const lines = text.trimEnd().replaceAll(emulator.url, "http://127.0.0.1:8080").split("\n");
  // Long JSON is cut to its start: the README shows its shape, the command prints it all.
  const shownLines = !whole && lines.length > 24 ? [...lines.slice(0, 20), `… (${lines.length - 20} more lines)`] : lines;
  out.push("```console", `$ shiplog ${shown}`, ...shownLines, ...(code ? [`$ echo $?`, String(code)] : []), "```", "");
};

// The emulator runs in this process: the CLI must run asynchronously, or nobody would answer it.
async function exec(file: string, args: string[], token: string | undefined): Promise<{ text: string; code: number | null }> {
  const { code, stdout, stderr } = await runProcess(file, args, { env: env(token) });
  return { text: stdout + stderr, code };
}

/** Runs the CLI with the admin's token unless given one (null: no token). */
async function run(args: string[], given?: string | null): Promise<void> {
  const token = given === null ? undefined : (given ?? emulator.tokens.admin);
  const { text, code } = await exec(process.execPath, [CLI, ...args], token);
  show(args, text, code);
}

/** stdout and stderr interleaved as a terminal shows them. */
async function runWithStderr(args: string[], token: string | undefined = emulator.tokens.admin!): Promise<void> {
  const { text, code } = await exec("sh", ["-c", `"${process.execPath}" "${CLI}" ${args.map((a) => `'${a}'`).join(" ")} 2>&1`], token);
  show(args, text, code);
}

async function tail(args: string[], token: string, route: string, more: () => void, lines: number): Promise<void> {
  const polls = () => emulator.requests.count({ method: "GET", route });
  const before = polls();
  const child = spawn(process.execPath, [CLI, ...args], { env: env(token) });
  let text = "";
  child.stdout.on("data", (c: Buffer) => (text += c.toString()));
  child.stderr.on("data", (c: Buffer) => (text += c.toString()));
  // Once the first poll is answered, what happens next is new to the tail.
  while (polls() === before) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 200));
  more();
  while (text.split("\n").filter(Boolean).length < lines) await new Promise((r) => setTimeout(r, 100));
  child.kill("SIGINT");
  const code = await new Promise<number>((r) => child.on("exit", (c) => r(c ?? 0)));
  show(args, `${text}^C`, code);
}

out.push("### help", "");
show(["--help"], (await exec(process.execPath, [CLI, "--help"], undefined)).text, 0, true);
show(["records", "storage", "--help"], (await exec(process.execPath, [CLI, "records", "storage", "--help"], undefined)).text, 0, true);
out.push("### records", "");
await runWithStderr(["records", "deployments", "--org", "acme", digest]);
await run(["records", "deployments", "--org", "acme", digest, "--json"]);
await runWithStderr(["records", "storage", "--org", "acme", digest]);
await run(["records", "storage", "--org", "acme", digest, "--json"]);
await run(["records", "set-cluster", "--org", "acme", "--cluster", "stage-1", "--file", join(dir, "deployments.json")]);
out.push("On a terminal the call draws a progress bar on stderr while the chunks go out:", "");
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
out.push("```console", `$ shiplog records set-cluster --org acme --cluster stage-2 --file deployments.json`, lastFrame(tty), "```", "");
/** What a terminal shows at the end: the bar's last frame (redrawn with \r), then the table. */
/** A terminal escape (CSI sequence, or cursor save/restore); ESC is written by code so the pattern holds no control character. */
const TERMINAL_ESCAPE = new RegExp(`${String.fromCharCode(27)}(\\[[0-9;?]*[A-Za-z]|[78])`, "g");

function lastFrame(raw: string): string {
  const clean = raw.replace(TERMINAL_ESCAPE, "\n");
  const bar = clean.match(/[=-]{40} 2500\/2500 entries [^\n]*/g)?.at(-1) ?? "";
  const table = clean.split(/\r?\n/).filter((l) => /^(CLUSTER|stage-2)/.test(l.replace(/^.*\r/, "")));
  return [bar.trim(), ...table.map((l) => l.replace(/^.*\r/, ""))].join("\n");
}
out.push("### tag create", "");
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
await run([
  "tag",
  "create",
  "acme/web",
  "v1.4.0",
  "--object",
  emulator.state.git.repository("acme", "web")!.commits()[0]!.sha,
  "--message",
  "Release 1.4.0",
]);
out.push("### events tail", "");
emulator.state.events.setPollInterval(1);
emulator.state.notifications.setPollInterval(1);
await tail(
  ["events", "tail", "repo:acme/web"],
  emulator.tokens.admin!,
  "/repos/:owner/:repo/events",
  () => {
    emulator.activity.push({ actor: "octo", repo: "acme/web", commits: 2 });
    emulator.activity.star({ actor: "hubot", repo: "acme/web" });
  },
  2,
);
await tail(
  ["events", "tail", "org:acme", "--json"],
  emulator.tokens.admin!,
  "/orgs/:org/events",
  () => void emulator.activity.createBranch({ actor: "octo", repo: "acme/web", ref: "feature/checkout" }),
  1,
);
out.push("### notifications", "");
const issue = emulator.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Checkout is slow" });
await tail(
  ["notifications", "tail"],
  emulator.tokens.classic!,
  "/notifications",
  () => void emulator.activity.mention({ actor: "hubot", repo: "acme/web", issue: issue.number, user: "octo" }),
  1,
);
await run(["notifications", "list"], emulator.tokens.classic);
const thread = (
  await new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.classic, retry: false }).notifications.list().next()
).value;
await run(["notifications", "list", "--json"], emulator.tokens.classic);
if (thread) await run(["notifications", "read", thread.id], emulator.tokens.classic);
await run(["notifications", "read", "--all"], emulator.tokens.classic);
out.push("### import (retired)", "");
emulator.clock.set("2024-03-01T12:00:00Z", { freeze: true });
await new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.classic, retry: false }).imports.startImport({
  owner: "acme",
  repo: "api",
  vcs_url: "https://svn.example.com/svn/myproject",
});
await runWithStderr(["import", "status", "acme/api"], emulator.tokens.classic);
await run(["import", "status", "acme/api", "--json"], emulator.tokens.classic);
emulator.imports.startTimer(800);
await runWithStderr(["import", "follow", "acme/api", "--interval", "1"], emulator.tokens.classic);
emulator.imports.stopTimer();
emulator.clock.reset();
out.push("### App credentials", "", "With `SHIPLOG_TOKEN` unset, the App's id and key file:", "");
const keyFile = join(dir, "app.pem");
writeFileSync(keyFile, emulator.apps.privateKey(1001001), { mode: 0o600 });
await runWithStderr(["records", "storage", "--org", "acme", digest, "--app-id", "1001001", "--app-private-key-file", keyFile], "");
out.push("The emulator's request log of that run: the installation found from `--org`, its token minted, then used:", "");
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
out.push("With `SHIPLOG_TOKEN` still set:", "");
await run(["records", "storage", "--org", "acme", digest, "--app-id", "1001001", "--app-private-key-file", keyFile]);
out.push("### permissions", "");
await run(["permissions", "PATCH", "/repos/acme/web/git/refs/tags/v1"], null);
await run(["permissions", "GET", "/repos/acme/web/git/matching-refs/tags/v1", "--json"], null);
out.push("### errors", "");
await run(["records", "storage", digest]);
await run(["tag", "create", "acme/web", "v1", "--object", "abc"]);
await run(["records", "storage", "--org", "acme", digest], emulator.tokens.noGrants);
await run(["records", "storage", "--org", "acme", digest], null);
await run(["events", "tail", "repos:acme/web"]);
await run(["records", "set-cluster", "--org", "acme", "--cluster", "x", "--fil", "deployments.json"]);
process.stdout.write(out.join("\n"));
await emulator.stop();
