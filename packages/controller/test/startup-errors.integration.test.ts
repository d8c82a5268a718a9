// Each bad setting, given to the controller as a real process: one line on stderr naming the setting and the rule,
// exit code 2, no stack trace, and never the token or a URL's credentials.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTROLLER_MAIN as MAIN } from "../../../test/kit/controller-process.js";
import { closeLoopbackServers, occupyPort } from "../../../test/kit/loopback.js";
import { runProcess, type Run } from "../../../test/kit/process.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const TOKEN = "ghs_startupTokenNeverPrinted0123456789";
let dir: string;
let kubeconfig: string;
let busyPort: number;

beforeAll(async () => {
  dir = tempDir("shiplog-startup-");
  kubeconfig = join(dir, "kubeconfig");
  // Loading a kubeconfig does not connect: a syntactically valid one is enough to reach the later checks.
  writeFileSync(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
      "users: [{name: u, user: {token: kube-token-never-printed}}]",
      "contexts: [{name: x, context: {cluster: c, user: u}}]",
      "current-context: x",
    ].join("\n"),
  );
  writeFileSync(
    join(dir, "missing-ca-kubeconfig"),
    readFileSync(kubeconfig, "utf8").replace(
      'server: "https://127.0.0.1:1"',
      'server: "https://127.0.0.1:1", certificate-authority: /nonexistent/ca.crt',
    ),
  );
  writeFileSync(join(dir, "bad-server-kubeconfig"), readFileSync(kubeconfig, "utf8").replace('"https://127.0.0.1:1"', '"not a url"'));
  writeFileSync(join(dir, "broken-kubeconfig"), "apiVersion: v1\nusers: [{name: u, user: {token: kube-token-never-printed}\n");
  writeFileSync(join(dir, "empty-kubeconfig"), "");
  writeFileSync(join(dir, "comment-kubeconfig"), "# nothing here yet\n\n");
  busyPort = await occupyPort();
});
afterAll(closeLoopbackServers);

/**
 * Runs the controller until it exits (bounded: a process that would keep running is killed and fails the test).
 * `$DIR` in a variable stands for the test's directory.
 */
function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  env = Object.fromEntries(Object.entries(env).map(([name, value]) => [name, value.replace("$DIR", dir)]));
  return runProcess(process.execPath, [MAIN, "--http-host", "127.0.0.1", "--http-port", "0", ...args], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: dir,
      SHIPLOG_TOKEN: TOKEN,
      SHIPLOG_ORG: "acme",
      SHIPLOG_CLUSTER: "c",
      SHIPLOG_LOGICAL_ENVIRONMENT: "production",
      KUBECONFIG: kubeconfig,
      SHIPLOG_LOG_LEVEL: "silent",
      ...env,
    },
    // Generous: under a full parallel suite on two cores, loading the Kubernetes client alone can take seconds.
    timeoutMs: 50_000,
  });
}

const CASES: { name: string; args?: string[]; env?: Record<string, string>; setting: string; rule: string; also?: RegExp }[] = [
  {
    name: "--flush-max-wait 1000h",
    args: ["--flush-max-wait", "1000h"],
    setting: "--flush-max-wait / SHIPLOG_FLUSH_MAX_WAIT",
    rule: "maximum 2147483647ms",
  },
  {
    name: "--request-timeout 1000h",
    args: ["--request-timeout", "1000h"],
    setting: "--request-timeout / SHIPLOG_REQUEST_TIMEOUT",
    rule: "maximum 2147483647ms",
  },
  {
    name: "--resync-interval 1000h",
    args: ["--resync-interval", "1000h"],
    setting: "--resync-interval / SHIPLOG_RESYNC_INTERVAL",
    rule: "maximum 2147483647ms",
  },
  {
    name: "SHIPLOG_LEASE_DURATION=1000h",
    env: { SHIPLOG_LEASE_DURATION: "1000h" },
    setting: "--lease-duration / SHIPLOG_LEASE_DURATION",
    rule: "maximum 2147483647ms",
  },
  {
    name: "SHIPLOG_RENEW_DEADLINE=1000h",
    env: { SHIPLOG_RENEW_DEADLINE: "1000h" },
    setting: "--renew-deadline / SHIPLOG_RENEW_DEADLINE",
    rule: "maximum 2147483647ms",
  },
  { name: '--api-url "not a url"', args: ["--api-url", "not a url"], setting: "--api-url / SHIPLOG_API_URL", rule: "absolute http(s) URL" },
  {
    name: "--api-url with user:password@",
    args: ["--api-url", "https://robot:url-password-never-printed@api.service.example"],
    setting: "--api-url / SHIPLOG_API_URL",
    rule: "no credentials in the URL",
  },
  {
    name: "--api-url http to a remote host",
    args: ["--api-url", "http://api.service.example"],
    setting: "--api-url / SHIPLOG_API_URL",
    rule: "https unless loopback",
  },
  {
    name: "--http-host with a space",
    args: ["--http-host", "not a host"],
    setting: "--http-host / SHIPLOG_HTTP_HOST",
    rule: "IP address or host name",
  },
  {
    name: "--http-host that does not resolve",
    args: ["--http-host", "nowhere.invalid"],
    setting: "--http-host / SHIPLOG_HTTP_HOST",
    rule: "resolvable host name",
  },
  {
    name: "--http-host not of this machine",
    args: ["--http-host", "192.0.2.1"],
    setting: "--http-host / SHIPLOG_HTTP_HOST",
    rule: "address of this machine",
  },
  {
    name: "--kubeconfig missing",
    args: ["--kubeconfig", "/nonexistent/kubeconfig"],
    setting: "--kubeconfig / KUBECONFIG",
    rule: "existing file",
    also: /"\/nonexistent\/kubeconfig" does not exist/,
  },
  // Empty is unset, and without ~/.kube/config outside a pod there is no cluster (not client-node's localhost:8080).
  {
    name: "no kubeconfig at all (KUBECONFIG empty)",
    env: { KUBECONFIG: "" },
    setting: "--kubeconfig / KUBECONFIG",
    rule: "a cluster to watch",
  },
  {
    name: "kubeconfig naming a CA file that does not exist",
    env: { KUBECONFIG: "$DIR/missing-ca-kubeconfig" },
    setting: "--kubeconfig / KUBECONFIG",
    rule: "readable referenced files",
    also: /certificate-authority of .*: "\/nonexistent\/ca\.crt" does not exist/,
  },
  {
    name: "kubeconfig whose server is not a URL",
    env: { KUBECONFIG: "$DIR/bad-server-kubeconfig" },
    setting: "--kubeconfig / KUBECONFIG",
    rule: "cluster server URL",
  },
  { name: "unknown flag", args: ["--flush-windw", "5s"], setting: "arguments", rule: "known flags" },
  // Accepted without a word before: each refused with its rule.
  {
    name: "a duration without a unit (5)",
    env: { SHIPLOG_FLUSH_WINDOW: "5" },
    setting: "--flush-window / SHIPLOG_FLUSH_WINDOW",
    rule: "duration with a unit",
  },
  {
    name: "SHIPLOG_NAMESPACES=,,",
    env: { SHIPLOG_NAMESPACES: ",," },
    setting: "--namespaces / SHIPLOG_NAMESPACES",
    rule: "no empty names",
  },
  {
    name: "a token variable beside a token file",
    env: { SHIPLOG_TOKEN_FILE: "$DIR/kubeconfig" },
    setting: "SHIPLOG_TOKEN, --token-file / SHIPLOG_TOKEN_FILE",
    rule: "one token source",
  },
  {
    name: "an API URL with a query",
    env: { SHIPLOG_API_URL: "https://api.example/?token=url-password-never-printed" },
    setting: "--api-url / SHIPLOG_API_URL",
    rule: "no query or fragment",
  },
  {
    name: "an API URL with a fragment",
    args: ["--api-url", "https://api.example/#x"],
    setting: "--api-url / SHIPLOG_API_URL",
    rule: "no query or fragment",
  },
  {
    name: "an empty kubeconfig",
    env: { KUBECONFIG: "$DIR/empty-kubeconfig" },
    setting: "--kubeconfig / KUBECONFIG",
    rule: "non-empty",
    also: /empty-kubeconfig" is empty: it must hold a kubeconfig/,
  },
  {
    name: "a kubeconfig of only comments",
    env: { KUBECONFIG: "$DIR/comment-kubeconfig" },
    setting: "--kubeconfig / KUBECONFIG",
    rule: "readable kubeconfig file",
    also: /holds no kubeconfig \(only comments or blank lines\)/,
  },
];

describe.concurrent("a bad setting stops the controller with one line, exit code 2", () => {
  it.each(CASES)("$name", async ({ args = [], env = {}, setting, rule, also }) => {
    const result = await run(args, env);
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^shiplog-controller: (invalid configuration|cannot start): /);
    expect(lines[0]).toContain(`${setting}: `);
    expect(lines[0]).toContain(`[rule: ${rule}]`);
    if (also) expect(lines[0]).toMatch(also);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const everything = result.stdout + result.stderr;
    for (const secret of [TOKEN, "url-password-never-printed", "kube-token-never-printed"]) expect(everything).not.toContain(secret);
  });

  it("a port in use names --http-port", async () => {
    const result = await run(["--http-port", String(busyPort)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `shiplog-controller: cannot start: --http-port / SHIPLOG_HTTP_PORT: 127.0.0.1:${busyPort} is already in use [rule: free port]\n`,
    );
  });

  it("a kubeconfig that is not YAML names the file and the line, never its content", async () => {
    const result = await run([], { KUBECONFIG: join(dir, "broken-kubeconfig") });
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(`--kubeconfig / KUBECONFIG: ${join(dir, "broken-kubeconfig")} is not valid YAML`);
    expect(result.stderr).not.toContain("kube-token-never-printed");
  });

  it("several problems: one line each", async () => {
    const result = await run(["--flush-max-wait", "1000h", "--batch-size", "0"]);
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    // In the order --help lists the settings (the settings table's).
    expect(lines.map((l) => l.split(": ")[2])).toEqual(["--batch-size / SHIPLOG_BATCH_SIZE", "--flush-max-wait / SHIPLOG_FLUSH_MAX_WAIT"]);
  });
});
