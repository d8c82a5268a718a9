// The Helm chart charts/shiplog-controller's values schema and its own checks (test/chart-setup.ts): bad values
// refused with Helm's message naming each field (Helm 4's words: `- at '/config/org': ...`), the required values named, values.yaml documenting every key.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHART_DIR, renderChart } from "./chart/helm.js";
import { RELEASE, useChart } from "./chart-setup.js";

describe("Helm chart charts/shiplog-controller", () => {
  const { render } = useChart();

  it("a values file that breaks the schema fails with Helm's message naming each field", () => {
    const result = render({ files: ["invalid-batch-size.yaml"] });
    expect(result.ok).toBe(false);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      "Error: values don't meet the specifications of the schema(s) in the following chart(s):\nshiplog-controller:\n",
    );
    expect(result.stderr).toContain("- at '/config/batchSize': maximum: got 5,000, want 1,000");
    expect(result.stderr).toContain("- at '/replicaCount': got string, want integer");
  });

  it.each([
    [{ confg: { org: "x" } }, "- at '': additional properties 'confg' not allowed"],
    [{ config: { org: "-acme" } }, "- at '/config/org': '-acme' does not match pattern"],
    [{ config: { cluster: "prod eu" } }, "- at '/config/cluster': 'prod eu' does not match pattern"],
    [{ config: { namespaces: ["Team_A"] } }, "- at '/config/namespaces/0': 'Team_A' does not match pattern"],
    [{ config: { flushWindow: "soon" } }, "- at '/config/flushWindow': 'soon' does not match pattern"],
    // The controller refuses a number without a unit (5: seconds or milliseconds?); so does the chart.
    [{ config: { flushWindow: "5" } }, "- at '/config/flushWindow': '5' does not match pattern"],
    [{ config: { concurrency: 0 } }, "- at '/config/concurrency': minimum: got 0, want 1"],
    [{ image: { digest: "sha256:abc" } }, "- at '/image/digest': 'sha256:abc' does not match pattern"],
    [{ token: { value: "" } }, "token: set token.existingSecret (the name of a Secret holding the API token) or token.value"],
    [{ token: { existingSecret: "mine" } }, "token: set either token.existingSecret or token.value, not both"],
    [{ leaderElection: { enabled: false } }, "replicaCount: more than one replica needs leaderElection.enabled=true"],
    [
      { config: { deploymentNameTemplate: "{namespace}-{workload}" } },
      "config.deploymentNameTemplate: must contain {workload} and {container}",
    ],
    // The controller's rule: an overlap is refused; a disjoint exclusion beside namespaces is not (chart-validation.integration.test.ts).
    [
      { config: { namespaces: ["a", "b"], excludeNamespaces: ["b"] } },
      "config.excludeNamespaces: b both included and excluded (the controller's rule: disjoint from namespaces)",
    ],
    [
      { leaderElection: { renewDeadline: "15s" } },
      "leaderElection.leaseDuration, leaderElection.renewDeadline, leaderElection.retryPeriod: the lease duration must be longer than the renew deadline (the controller's rule: lease timing)",
    ],
    [
      { leaderElection: { leaseDuration: "20s", renewDeadline: "0.5m" } },
      "leaderElection.leaseDuration, leaderElection.renewDeadline, leaderElection.retryPeriod: the lease duration must be longer than the renew deadline (the controller's rule: lease timing)",
    ],
    [
      { leaderElection: { retryPeriod: "9s" } },
      "leaderElection.leaseDuration, leaderElection.renewDeadline, leaderElection.retryPeriod: the renew deadline must be longer than 1.2 × the retry period (the controller's rule: lease timing)",
    ],
    [
      { leaderElection: { leaseDuration: "900ms", renewDeadline: "500ms", retryPeriod: "100ms" } },
      "leaderElection.leaseDuration: must be at least 1000ms (the controller's --lease-duration / SHIPLOG_LEASE_DURATION, rule: minimum 1000ms)",
    ],
    [{ config: { labelSelector: "a in (b" } }, 'config.labelSelector: not a valid Kubernetes label selector: "a in (b"'],
    [{ leaderElection: { leaseDuration: "soon" } }, "- at '/leaderElection/leaseDuration': 'soon' does not match pattern"],
  ])("refuses %j: %s", (values, message) => {
    const result = render({ values: [values] });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain(message);
  });

  it.each([
    // The edges the controller takes: equal waits where it says ≥; a renew deadline just above 1.2 x the retry period.
    { config: { flushWindow: "1s", flushMaxWait: "1s" } },
    { leaderElection: { renewDeadline: "2.401s", retryPeriod: "2s" } },
    // Without leader election the chart passes no lease timing, so it checks none (the controller uses its defaults).
    { leaderElection: { enabled: false, retryPeriod: "9s" }, replicaCount: 1 },
  ])("renders %j", (values) => {
    const result = render({ values: [values] });
    expect(result.stderr).toBe("");
    expect(result.ok).toBe(true);
  });

  it("without the required values, the message names org, cluster and logicalEnvironment", () => {
    const result = renderChart({ ...RELEASE, values: [{ token: { value: "t" } }] });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain("- at '/config/org': ");
    expect(result.stderr).toContain("- at '/config/cluster': ");
    expect(result.stderr).toContain("- at '/config/logicalEnvironment': minLength: got 0, want 1");
  });

  it("values.yaml documents every key the schema knows, and the schema closes every object it describes", () => {
    const schema = JSON.parse(readFileSync(join(CHART_DIR, "values.schema.json"), "utf8")) as {
      $schema: string;
      additionalProperties: boolean;
      properties: Record<string, { additionalProperties?: unknown; type: string; properties?: object }>;
    };
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(schema.additionalProperties).toBe(false);
    for (const [key, property] of Object.entries(schema.properties)) {
      if (property.type === "object" && property.properties) expect(property.additionalProperties, key).toBe(false);
    }
    const valuesText = readFileSync(join(CHART_DIR, "values.yaml"), "utf8");
    for (const key of Object.keys(schema.properties)) expect(valuesText, key).toMatch(new RegExp(`^${key}:`, "m"));
  });
});
