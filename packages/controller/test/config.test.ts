import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, redactedConfig } from "@shiplog/controller";
import { MAX_TIMER_MS, SETTING_PATTERNS, SETTINGS, parseDuration } from "@shiplog/controller/internal";
import { tempDir } from "../../../test/kit/temp-dir.js";
import { materialize, REFUSED } from "./config-refusals.js";

const ENV = {
  SHIPLOG_TOKEN: "ghs_secret_token_value",
  SHIPLOG_ORG: "acme",
  SHIPLOG_CLUSTER: "prod-eu",
  SHIPLOG_LOGICAL_ENVIRONMENT: "production",
};

function issuesOf(fn: () => unknown): { field: string; rule: string; message: string }[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe("invalid_config");
    expect((error as Error).message).not.toContain("ghs_secret_token_value");
    return (error as ConfigError).issues;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies defaults", () => {
    const config = loadConfig([], ENV);
    expect(config).toMatchObject({
      apiUrl: "https://api.github.com",
      org: "acme",
      cluster: "prod-eu",
      deploymentNameTemplate: "{namespace}-{workload}-{container}",
      flushWindowMs: 100,
      flushMaxWaitMs: 1000,
      writeBudgetPerMinute: 80,
      writeBudgetPerHour: 500,
      writeMinIntervalMs: 0,
      resyncBudgetShare: 0.5,
      batchSize: 1000,
      concurrency: 4,
      dryRun: false,
      namespaces: [],
      httpPort: 8080,
    });
    expect(redactedConfig(config).token).toBe("[redacted]");
  });

  it("leader election and state: off by default, client-go's timings, POD_NAME and POD_NAMESPACE read, bad timings named", () => {
    const defaults = loadConfig([], ENV);
    expect(defaults.leaseName).toBeUndefined();
    expect(defaults.stateConfigMap).toBeUndefined();
    expect(defaults).toMatchObject({
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2000,
      readyWhenStandby: true,
      shutdownTimeoutMs: 10_000,
    });
    const ha = loadConfig(["--renew-deadline", "5s"], {
      ...ENV,
      SHIPLOG_LEASE_NAME: "shiplog-controller",
      SHIPLOG_STATE_CONFIGMAP: "shiplog-controller-state",
      POD_NAME: "shiplog-controller-7d9c8b6f5-x2x4q",
      POD_NAMESPACE: "shiplog",
      SHIPLOG_READY_WHEN_STANDBY: "false",
    });
    expect(ha).toMatchObject({
      leaseName: "shiplog-controller",
      stateConfigMap: "shiplog-controller-state",
      podName: "shiplog-controller-7d9c8b6f5-x2x4q",
      podNamespace: "shiplog",
      renewDeadlineMs: 5000,
      readyWhenStandby: false,
    });
    const issues = issuesOf(() => loadConfig(["--lease-duration", "10s", "--retry-period", "9s"], ENV));
    expect(issues.map((i) => i.message)).toEqual([
      "the lease duration must be longer than the renew deadline",
      "the renew deadline must be longer than 1.2 × the retry period",
    ]);
    expect(issues[0]!.field).toBe(
      "--lease-duration / SHIPLOG_LEASE_DURATION, --renew-deadline / SHIPLOG_RENEW_DEADLINE, --retry-period / SHIPLOG_RETRY_PERIOD",
    );
    expect(issuesOf(() => loadConfig(["--lease-name", "Not_A_Name"], ENV))).toEqual([
      {
        field: "--lease-name / SHIPLOG_LEASE_NAME",
        rule: "invalid_format",
        message: "must be a Kubernetes object name (lowercase letters, digits, '-', '.')",
      },
    ]);
  });

  it("state shards: 16 by default, 1 to 64; the state ConfigMap's name leaves room for its shards' names", () => {
    expect(loadConfig([], ENV).stateMaxShards).toBe(16);
    expect(loadConfig(["--state-max-shards", "64"], ENV).stateMaxShards).toBe(64);
    expect(issuesOf(() => loadConfig([], { ...ENV, SHIPLOG_STATE_MAX_SHARDS: "0" }))).toEqual([
      {
        field: "--state-max-shards / SHIPLOG_STATE_MAX_SHARDS",
        rule: "integer 1..64",
        message: 'must be an integer from 1 to 64 (got "0")',
      },
    ]);
    expect(loadConfig([], { ...ENV, SHIPLOG_STATE_CONFIGMAP: "s".repeat(242) }).stateConfigMap).toHaveLength(242);
    expect(issuesOf(() => loadConfig([], { ...ENV, SHIPLOG_STATE_CONFIGMAP: "s".repeat(243) }))).toEqual([
      {
        field: "--state-configmap / SHIPLOG_STATE_CONFIGMAP",
        rule: "at most 242 characters",
        message: "must be at most 242 characters: its shard ConfigMaps are named <name>-shard-<i>-a and -b",
      },
    ]);
  });

  it("lets flags win over the environment and parses lists, durations and booleans", () => {
    const config = loadConfig(
      [
        "--org",
        "other",
        "--namespaces",
        "a, b",
        "--exclude-namespaces",
        "kube-system",
        "--flush-max-wait",
        "500ms",
        "--batch-size",
        "250",
        "--dry-run",
        "--http-port",
        "off",
        "--label-selector",
        "app=web",
      ],
      { ...ENV, SHIPLOG_FLUSH_MAX_WAIT: "9s" },
    );
    expect(config).toMatchObject({
      org: "other",
      namespaces: ["a", "b"],
      excludeNamespaces: ["kube-system"],
      flushMaxWaitMs: 500,
      batchSize: 250,
      dryRun: true,
      httpPort: "off",
      labelSelector: "app=web",
    });
  });

  it("reads the token from a file", () => {
    const dir = tempDir("shiplog-config-");
    writeFileSync(join(dir, "token"), "file_token\n");
    const { SHIPLOG_TOKEN: _ignored, ...env } = ENV;
    expect(loadConfig(["--token-file", join(dir, "token")], env).token).toBe("file_token");
    expect(issuesOf(() => loadConfig(["--token-file", join(dir, "missing")], env))[0]).toMatchObject({
      field: "--token-file / SHIPLOG_TOKEN_FILE",
      rule: "existing file",
    });
  });

  it("reports every problem at once, naming flag, variable and rule", () => {
    const issues = issuesOf(() =>
      loadConfig(
        [
          ...["--batch-size", "1001", "--flush-window", "soon", "--write-min-interval", "often"],
          ...["--deployment-name-template", "{namespace}-{pod}", "--cluster", "bad name"],
        ],
        { SHIPLOG_LOGICAL_ENVIRONMENT: "production" },
      ),
    );
    const fields = issues.map((i) => i.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        "--batch-size / SHIPLOG_BATCH_SIZE",
        "--flush-window / SHIPLOG_FLUSH_WINDOW",
        "--write-min-interval / SHIPLOG_WRITE_MIN_INTERVAL",
        "--deployment-name-template / SHIPLOG_DEPLOYMENT_NAME_TEMPLATE",
        "--cluster / SHIPLOG_CLUSTER",
        "--org / SHIPLOG_ORG",
        "SHIPLOG_TOKEN / --token-file",
      ]),
    );
    expect(issues.find((i) => i.field.startsWith("--batch-size"))!.rule).toBe("integer 1..1000");
    expect(
      issues
        .filter((i) => i.field.startsWith("--deployment-name-template"))
        .map((i) => i.message)
        .join(" "),
    ).toMatch(/unknown placeholder \{pod\}.*must contain \{workload\}/s);
  });

  it("parses durations: a number needs its unit (but 0)", () => {
    expect([parseDuration("250ms"), parseDuration("1.5m"), parseDuration("1h"), parseDuration("0"), parseDuration("x")]).toEqual([
      250,
      90_000,
      3_600_000,
      0,
      undefined,
    ]);
    expect(parseDuration("2")).toBeUndefined();
    expect(issuesOf(() => loadConfig([], { ...ENV, SHIPLOG_FLUSH_WINDOW: "5" }))).toEqual([
      {
        field: "--flush-window / SHIPLOG_FLUSH_WINDOW",
        rule: "duration with a unit",
        message: '"5" has no unit: write 5s or 5ms (units: ms, s, m, h)',
      },
    ]);
  });

  it("validates the label selector at start, naming the flag, the variable and the rule", () => {
    expect(loadConfig(["--label-selector", "tier in (front, back),!legacy"], ENV).labelSelector).toBe("tier in (front, back),!legacy");
    expect(loadConfig([], { ...ENV, SHIPLOG_LABEL_SELECTOR: "app.kubernetes.io/name=web" }).labelSelector).toBe(
      "app.kubernetes.io/name=web",
    );
    // The refused selectors are the shared table's (config-refusals.ts); each is one issue, with the parser's reason.
    const bad = REFUSED.filter((c) => c.rule === "label selector syntax");
    expect(bad.length).toBeGreaterThan(0);
    for (const c of bad) {
      const issues = issuesOf(() => loadConfig([], { ...ENV, ...c.env }));
      expect(issues).toHaveLength(1);
      expect(issues[0]!.message).toMatch(/^not a valid Kubernetes label selector: /);
    }
  });

  it("an empty variable is unset, booleans included: SHIPLOG_DRY_RUN= is not dry-run", () => {
    const empty = Object.fromEntries(Object.values(SETTINGS).map((setting) => [setting.env, ""]));
    const config = loadConfig([], { ...empty, ...ENV });
    expect(config).toMatchObject({
      dryRun: false,
      readyWhenStandby: true,
      flushWindowMs: 100,
      apiUrl: "https://api.github.com",
      httpHost: "0.0.0.0",
    });
    expect(config.kubeconfig).toBeUndefined();
    expect(loadConfig(["--dry-run"], { ...ENV, SHIPLOG_DRY_RUN: "" }).dryRun).toBe(true);
    expect(loadConfig([], { ...ENV, SHIPLOG_DRY_RUN: "true" }).dryRun).toBe(true);
  });

  it("every duration fits a timer (2^31-1 ms): longer ones are refused by name, with the limit", () => {
    const durations = Object.values(SETTINGS).filter((s) => /interval|timeout|delay|duration|deadline|period|window|wait/.test(s.flag));
    expect(durations.length).toBe(13);
    // The shared table (config-refusals.ts) refuses 1000h in every one of them.
    const tooLong = REFUSED.filter((c) => c.rule === `maximum ${MAX_TIMER_MS}ms`);
    expect(tooLong.map((c) => c.field).sort()).toEqual(durations.map((s) => `--${s.flag} / ${s.env}`).sort());
    for (const c of tooLong) {
      const issues = issuesOf(() => loadConfig([], { ...ENV, ...c.env })).filter((i) => i.rule.startsWith("maximum"));
      expect(issues, c.field).toEqual([{ field: c.field, rule: c.rule, message: expect.stringContaining("the longest a timer can wait") }]);
    }
    expect(loadConfig(["--flush-max-wait", `${MAX_TIMER_MS}ms`], ENV).flushMaxWaitMs).toBe(MAX_TIMER_MS);
    // The idle timeout's default (watch timeout + 30 s) stays within the limit too.
    expect(loadConfig(["--watch-timeout", `${MAX_TIMER_MS}ms`], ENV).watchIdleTimeoutMs).toBe(MAX_TIMER_MS);
  });

  it("refuses credentials in the API URL without repeating them", () => {
    const issues = issuesOf(() => loadConfig(["--api-url", "https://robot:hunter2-secret@api.service.example"], ENV));
    expect(JSON.stringify(issues)).not.toContain("hunter2-secret");
  });

  it("allows http only for a loopback API URL: the token must not cross the network in clear text", () => {
    for (const url of ["http://127.0.0.1:8080", "http://localhost:3000/api", "http://[::1]:9000", "https://service.example.com/api/v3"]) {
      expect(loadConfig(["--api-url", url], ENV).apiUrl).toBe(url.replace(/\/+$/, ""));
    }
    // One rule with the action and the client: *.localhost is resolved by DNS outside browsers, so it is not loopback.
    // The refused ones (http to another host) are the shared table's: the message says why.
    for (const c of REFUSED.filter((c) => c.rule === "https unless loopback")) {
      expect(issuesOf(() => loadConfig([], { ...ENV, ...c.env }))[0]!.message).toMatch(/must use https:\/\/ .* clear text/);
    }
  });

  // Every refusal of the shared table (config-refusals.ts) that is this file's: refused, naming the field and the rule.
  it.each(REFUSED.filter((c) => c.source === "config.test.ts").map((c) => [`${JSON.stringify(c.argv ?? c.env)} -> ${c.rule}`, c] as const))(
    "refuses %s",
    (_name, c) => {
      const env = materialize(c, tempDir("shiplog-config-refused-"));
      expect(issuesOf(() => loadConfig(c.argv ?? [], env))).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: c.field, rule: c.rule })]),
      );
    },
  );

  it("the API URL pattern the chart's schema is generated from accepts no URL the controller refuses", () => {
    const pattern = new RegExp(SETTING_PATTERNS.apiUrl);
    const urls = [
      ...REFUSED.filter((c) => c.env.SHIPLOG_API_URL !== undefined).map((c) => c.env.SHIPLOG_API_URL!),
      ...["https://api.github.com", "https://ghe.example.com/api/v3/", "http://127.0.0.1:8080", "http://localhost:3000/api"],
      ...["http://[::1]:9000", "https://h/@user/path", "https://user@h", "ftp://h", "https:///x", "https://h x", "http://127.0.0.1@evil"],
    ];
    expect(urls.filter((url) => pattern.test(url)).length).toBeGreaterThanOrEqual(6);
    for (const url of urls) {
      if (pattern.test(url)) expect(() => loadConfig(["--api-url", url], ENV), url).not.toThrow();
    }
  });
});
