// Secrets are never echoed: every setting that may hold a secret (a token, a token file, the App's private key
// file, a kubeconfig, the API URL, the action's token) driven through every error path (missing file, directory,
// FIFO, oversized, content given where the path belongs, unreadable, wrong content), in the controller
// (dist/main.js), the CLI (dist/cli.js) and the action's committed bundle as real processes. Each run ends by itself
// with one line naming the setting and the rule, no stack trace, and the secret nowhere in what it printed (the
// action's one `::add-mask::` line excepted: that is how the runner learns what to mask). The sweep is printed.
import { generateKeyPairSync } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { printTable } from "./demo/table.js";
import {
  answerOf,
  cell,
  hostileFiles,
  runAction,
  runController,
  runShiplog,
  type HostileFiles,
  type ProgramRun,
} from "./kit/hostile-programs.js";
import { pool } from "./kit/pool.js";

const TOKEN = "ghs_SweepSecretToken0123456789abcdefXYZ";
const KUBE_TOKEN = "kube-sweep-token-never-printed";
const KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
/** What of the key must never be printed: every line of its body, and its header line (the old leak began with it). */
const KEY_SECRETS = ["-----BEGIN RSA PRIVATE KEY-----", ...KEY.split("\n").filter((line) => line.length >= 40)];
const KUBECONFIG = [
  "apiVersion: v1",
  "kind: Config",
  'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
  `users: [{name: u, user: {token: ${KUBE_TOKEN}}}]`,
  "contexts: [{name: x, context: {cluster: c, user: u}}]",
  "current-context: x",
  "",
].join("\n");
const DIGEST = `sha256:${"a".repeat(64)}`;

let f: HostileFiles;
beforeAll(() => {
  f = hostileFiles("shiplog-sweep-");
});

interface Row {
  program: "controller" | "cli" | "action";
  setting: string;
  path: string;
  secrets: string[];
  run: () => Promise<ProgramRun & { annotations?: { level: string; title?: string; message: string }[] }>;
}

/** The error paths of a file setting holding `secret` (as `content`), each as the value to give it. */
function filePaths(name: string, content: string, asPath: string, wrong: string) {
  return [
    { path: "missing file", value: () => `${f.dir}/${name}-missing` },
    { path: "directory", value: () => f.directory },
    { path: "FIFO", value: () => f.fifo },
    { path: "oversized", value: () => f.oversized(`${name}-big`, 8 * 1024 * 1024, content) },
    { path: "content as path", value: () => asPath },
    { path: "unreadable", value: () => f.unreadable(`${name}-000`, content), withoutRootRead: true },
    { path: "wrong content", value: () => f.file(`${name}-wrong`, wrong) },
  ];
}

const TOKEN_PATHS = () => filePaths("token", `${TOKEN}\n`, TOKEN, `${TOKEN} ${TOKEN}\n`);
const KEY_PATHS = () => filePaths("key", KEY, KEY, KEY.replace(/\n[A-Za-z0-9+/]{10}/, "\n!!!!!!!!!!"));
const KUBE_PATHS = () => filePaths("kube", KUBECONFIG, KUBECONFIG, `${KUBECONFIG}users: [{name: u, user: {token: ${KUBE_TOKEN}}\n`);

function rows(): Row[] {
  const out: Row[] = [];
  // The controller.
  for (const p of TOKEN_PATHS()) {
    out.push({
      program: "controller",
      setting: "SHIPLOG_TOKEN_FILE",
      path: p.path,
      secrets: [TOKEN],
      run: () => runController({ SHIPLOG_TOKEN_FILE: p.value() }, { withoutRootRead: p.withoutRootRead }),
    });
  }
  for (const p of KEY_PATHS()) {
    out.push({
      program: "controller",
      setting: "SHIPLOG_APP_PRIVATE_KEY_FILE",
      path: p.path,
      secrets: KEY_SECRETS,
      run: () => runController({ SHIPLOG_APP_ID: "1", SHIPLOG_APP_PRIVATE_KEY_FILE: p.value() }, { withoutRootRead: p.withoutRootRead }),
    });
  }
  for (const p of KUBE_PATHS()) {
    out.push({
      program: "controller",
      setting: "KUBECONFIG",
      path: p.path,
      secrets: [KUBE_TOKEN],
      run: () => runController({ SHIPLOG_TOKEN: "t0ken", KUBECONFIG: p.value() }, { withoutRootRead: p.withoutRootRead }),
    });
  }
  const controllerVariables: [string, string, () => Record<string, string>][] = [
    ["SHIPLOG_TOKEN", "beside a token file", () => ({ SHIPLOG_TOKEN: TOKEN, SHIPLOG_TOKEN_FILE: f.file("other-token", "other\n") })],
    [
      "SHIPLOG_TOKEN",
      "beside an App",
      () => ({ SHIPLOG_TOKEN: TOKEN, SHIPLOG_APP_ID: "1", SHIPLOG_APP_PRIVATE_KEY_FILE: f.file("key.pem", KEY) }),
    ],
    ["SHIPLOG_TOKEN", "holding white space", () => ({ SHIPLOG_TOKEN: `${TOKEN} ${TOKEN}` })],
    [
      "SHIPLOG_API_URL",
      "credentials in the URL",
      () => ({ SHIPLOG_TOKEN: "t0ken", SHIPLOG_API_URL: `https://robot:${TOKEN}@api.example` }),
    ],
    [
      "SHIPLOG_API_URL",
      "token in a query",
      () => ({ SHIPLOG_TOKEN: "t0ken", SHIPLOG_API_URL: `https://api.example/?access_token=${TOKEN}` }),
    ],
  ];
  for (const [setting, path, env] of controllerVariables) {
    out.push({ program: "controller", setting, path, secrets: [TOKEN, ...KEY_SECRETS], run: () => runController(env()) });
  }

  // The CLI.
  const storage = ["records", "storage", "--org", "acme", DIGEST];
  for (const p of TOKEN_PATHS()) {
    out.push({
      program: "cli",
      setting: "--token-file",
      path: p.path,
      secrets: [TOKEN],
      run: () => runShiplog(["--token-file", p.value(), ...storage], {}, { withoutRootRead: p.withoutRootRead }),
    });
  }
  for (const p of KEY_PATHS()) {
    out.push({
      program: "cli",
      setting: "SHIPLOG_APP_PRIVATE_KEY_FILE",
      path: p.path,
      secrets: KEY_SECRETS,
      run: () =>
        runShiplog(["--app-id", "1", ...storage], { SHIPLOG_APP_PRIVATE_KEY_FILE: p.value() }, { withoutRootRead: p.withoutRootRead }),
    });
  }
  const cliVariables: [string, string, () => [string[], Record<string, string>]][] = [
    [
      "SHIPLOG_TOKEN",
      "beside a token file",
      () => [storage, { SHIPLOG_TOKEN: TOKEN, SHIPLOG_TOKEN_FILE: f.file("other-token", "other\n") }],
    ],
    [
      "SHIPLOG_TOKEN",
      "beside an App",
      () => [["--app-id", "1", ...storage], { SHIPLOG_TOKEN: TOKEN, SHIPLOG_APP_PRIVATE_KEY_FILE: f.file("key.pem", KEY) }],
    ],
    ["SHIPLOG_TOKEN", "holding a line break", () => [storage, { SHIPLOG_TOKEN: `${TOKEN}\n${TOKEN}` }]],
    [
      "--api-url",
      "credentials in the URL",
      () => [["--api-url", `https://robot:${TOKEN}@api.example`, ...storage], { SHIPLOG_TOKEN: "t0ken" }],
    ],
    [
      "SHIPLOG_API_URL",
      "token in a query",
      () => [storage, { SHIPLOG_TOKEN: "t0ken", SHIPLOG_API_URL: `https://api.example/?access_token=${TOKEN}` }],
    ],
  ];
  for (const [setting, path, given] of cliVariables) {
    out.push({
      program: "cli",
      setting,
      path,
      secrets: [TOKEN, ...KEY_SECRETS],
      run: () => {
        const [args, env] = given();
        return runShiplog(args, env);
      },
    });
  }

  // The action: its token beside every file it reads and every URL mistake.
  const registry = { "registry-url": "https://registry.example/" };
  const actionCases: [string, string, () => [Record<string, string>, Record<string, string>], boolean?][] = [
    ["token, subject-checksums", "missing file", () => [{ ...registry, "subject-checksums": `${f.dir}/sums-missing` }, {}]],
    ["token, subject-checksums", "directory", () => [{ ...registry, "subject-checksums": f.directory }, {}]],
    ["token, subject-checksums", "FIFO", () => [{ ...registry, "subject-checksums": f.fifo }, {}]],
    [
      "token, subject-checksums",
      "oversized",
      () => [{ ...registry, "subject-checksums": f.oversized("sums-big", 8 * 1024 * 1024, TOKEN) }, {}],
    ],
    ["token, subject-checksums", "unreadable", () => [{ ...registry, "subject-checksums": f.unreadable("sums-000", TOKEN) }, {}], true],
    // A file that quotes the token (a checksums line, the process's own environment): the problem is redacted.
    ["token, subject-checksums", "wrong content", () => [{ ...registry, "subject-checksums": f.file("sums-wrong", `${TOKEN}  x\n`) }, {}]],
    ["token, subject-checksums", "/proc/self/environ", () => [{ ...registry, "subject-checksums": "/proc/self/environ" }, {}]],
    [
      "token, GITHUB_OUTPUT",
      "FIFO",
      () => [{ ...registry, "subject-digest": DIGEST, "subject-name": "app", "dry-run": "true" }, { GITHUB_OUTPUT: f.fifo }],
    ],
    [
      "token, api-url",
      "credentials in the URL",
      () => [{ ...registry, "subject-digest": DIGEST, "subject-name": "app", "api-url": `https://robot:${TOKEN}@api.example` }, {}],
    ],
    [
      "token, api-url",
      "token in a query",
      () => [{ ...registry, "subject-digest": DIGEST, "subject-name": "app", "api-url": `https://api.example/?t=${TOKEN}` }, {}],
    ],
  ];
  for (const [setting, path, given, withoutRootRead] of actionCases) {
    out.push({
      program: "action",
      setting,
      path,
      secrets: [TOKEN],
      run: () => {
        const [inputs, env] = given();
        return runAction(f.dir, inputs, env, TOKEN, { withoutRootRead });
      },
    });
  }
  return out;
}

/** What the program printed, less the action's mask command (the one place a runner must see the token). */
const printed = (run: ProgramRun) =>
  `${run.stdout
    .split("\n")
    .filter((line) => !line.startsWith("::add-mask::"))
    .join("\n")}\n${run.stderr}`;

describe("secret sweep", () => {
  it("no secret-bearing setting is echoed on any error path, by any of the three programs", { timeout: 300_000 }, async () => {
    const all = rows();
    const results = await pool(
      all.map((row) => () => row.run()),
      4,
    );
    const table = all.map((row, i) => {
      const result = results[i]!;
      const echoed = row.secrets.filter((secret) => printed(result).includes(secret));
      return {
        path: row.path,
        program: row.program,
        setting: row.setting,
        "error path": row.path,
        exit: result.hung ? "hung" : String(result.code),
        echoed: echoed.length === 0 ? "no" : `YES (${echoed.length})`,
        answer: cell(answerOf(result), 140),
        result,
        secretsEchoed: echoed,
      };
    });
    printTable(`Secret sweep: ${table.length} runs (controller dist/main.js, cli dist/cli.js, the action's bundle)`, table, [
      "program",
      "setting",
      "error path",
      "exit",
      "echoed",
      "answer",
    ]);
    for (const row of table) {
      const what = `${row.program} ${row.setting} (${row.path}):\n${row.result.stdout}${row.result.stderr}`;
      expect(row.secretsEchoed, what).toEqual([]);
      expect(row.result.hung, what).toBe(false);
      expect(row.result.code, what).toBe(
        row.program === "action" && row.setting === "token, GITHUB_OUTPUT" ? 0 : row.program === "action" ? 1 : 2,
      );
      expect(row.result.stderr, what).not.toMatch(/\n\s+at /);
      if (row.program !== "action") {
        expect(row.result.stderr.trim().split("\n"), what).toHaveLength(1);
        expect(row.result.stderr, what).toMatch(/\[rule: [^\]]+\]|: must /);
      }
      // The action masks its token once, and prints it nowhere else.
      if (row.program === "action") expect(row.result.stdout.split(TOKEN).length - 1, what).toBe(1);
    }
  });
});
