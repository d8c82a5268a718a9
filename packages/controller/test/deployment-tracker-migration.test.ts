// Migration from github/deployment-tracker, as pure logic: its annotations read as it reads them (when the option
// says so), and its deployment-name template reproducing its names.
import { describe, expect, it } from "vitest";
import { loadConfig } from "@shiplog/controller";
import { computeDesiredState, readRecordAnnotations } from "@shiplog/controller/internal";
import { MAPPING, deploymentWithPods, snapshot } from "./kube-fixtures.js";

const ENV = { SHIPLOG_TOKEN: "t", SHIPLOG_ORG: "acme", SHIPLOG_CLUSTER: "prod-eu", SHIPLOG_LOGICAL_ENVIRONMENT: "production" };
const TRACKER = { deploymentTracker: true };

describe("deployment-tracker's annotations", () => {
  it("are ignored unless the option is on", () => {
    const { value, warnings } = readRecordAnnotations(
      { "metadata.github.com/team": "payments", "metadata.github.com/runtime-risks": "sensitive-data" },
      "app",
    );
    expect(value).toEqual({});
    expect(warnings).toEqual([]);
  });

  it("metadata.github.com/<key> are tags and metadata.github.com/runtime-risks the risks, read as deployment-tracker reads them", () => {
    const { value, warnings } = readRecordAnnotations(
      {
        "metadata.github.com/team": "payments",
        "metadata.github.com/owner": "alice",
        "metadata.github.com/runtime-risks": " Internet-Exposed, sensitive-data ,made-up,",
        "unrelated.example.com/x": "y",
      },
      "app",
      TRACKER,
    );
    // Case and spaces ignored; an unknown risk is dropped alone (deployment-tracker's ValidateRuntimeRisk), with a
    // warning, and the runtime-risks annotation is not a tag.
    expect(value).toEqual({ tags: { owner: "alice", team: "payments" }, runtimeRisks: ["internet-exposed", "sensitive-data"] });
    expect(warnings).toEqual([
      { annotation: "metadata.github.com/runtime-risks", reason: expect.stringContaining('unknown runtime risk "made-up" dropped') },
    ]);
  });

  it("next to shiplog's own: shiplog's tag wins a shared key, risks are joined, at most 5 tags with shiplog's first", () => {
    const { value, warnings } = readRecordAnnotations(
      {
        "tags.shiplog.dev/team": "platform",
        "metadata.github.com/team": "payments",
        "metadata.github.com/a": "1",
        "metadata.github.com/b": "2",
        "metadata.github.com/c": "3",
        "metadata.github.com/d": "4",
        "metadata.github.com/e": "5",
        "shiplog.dev/runtime-risks": "lateral-movement",
        "metadata.github.com/runtime-risks": "critical-resource",
      },
      "app",
      TRACKER,
    );
    expect(value.tags).toEqual({ team: "platform", a: "1", b: "2", c: "3", d: "4" });
    expect(value.runtimeRisks).toEqual(["critical-resource", "lateral-movement"]);
    expect(warnings.map((w) => [w.annotation, w.reason])).toEqual([
      ["metadata.github.com/e", "at most 5 tags; tags are taken in key order"],
      ["metadata.github.com/team", 'tag "team" is already set by tags.shiplog.dev/team, which wins'],
    ]);
  });

  it("limits keys and values to 100 characters, counted as deployment-tracker counts them (code points)", () => {
    const { value, warnings } = readRecordAnnotations(
      {
        "metadata.github.com/emoji": "🚀".repeat(100),
        "metadata.github.com/long": "x".repeat(101),
        [`metadata.github.com/${"k".repeat(101)}`]: "v",
      },
      "app",
      TRACKER,
    );
    expect(value.tags).toEqual({ emoji: "🚀".repeat(100) });
    expect(warnings).toHaveLength(2);
  });

  it("reach the records through the desired state, workload and pod annotations merged", () => {
    const d = deploymentWithPods("web", {
      namespace: "shop",
      annotations: { "metadata.github.com/team": "payments", "metadata.github.com/runtime-risks": "internet-exposed" },
    });
    const options = { ...MAPPING, deploymentNameTemplate: "{namespace}/{workload}/{container}", deploymentTrackerAnnotations: true };
    const records = [...computeDesiredState(snapshot({ pods: d.pods, workloads: d.workloads }), options).records.values()];
    expect(records.map((r) => [r.entry.deployment_name, r.entry.tags, r.entry.runtime_risks])).toEqual([
      ["shop/web/app", { team: "payments" }, ["internet-exposed"]],
    ]);
  });
});

describe("deployment-tracker's deployment-name template", () => {
  it("its syntax is read as ours, and its default gives its names", () => {
    expect(
      loadConfig(["--deployment-name-template", "{{namespace}}/{{deploymentName}}/{{containerName}}"], ENV).deploymentNameTemplate,
    ).toBe("{namespace}/{workload}/{container}");
    expect(loadConfig([], { ...ENV, SHIPLOG_DEPLOYMENT_NAME_TEMPLATE: "{namespace}/{workload}/{container}" }).deploymentNameTemplate).toBe(
      "{namespace}/{workload}/{container}",
    );
  });

  it("a template without the workload or the container is refused, in either syntax", () => {
    expect(() => loadConfig(["--deployment-name-template", "{{namespace}}/{{deploymentName}}"], ENV)).toThrow(/must contain \{container\}/);
  });

  it("the annotations option is off by default and read from its flag or variable", () => {
    expect(loadConfig([], ENV).deploymentTrackerAnnotations).toBe(false);
    expect(loadConfig(["--deployment-tracker-annotations"], ENV).deploymentTrackerAnnotations).toBe(true);
    expect(loadConfig([], { ...ENV, SHIPLOG_DEPLOYMENT_TRACKER_ANNOTATIONS: "true" }).deploymentTrackerAnnotations).toBe(true);
    expect(() => loadConfig([], { ...ENV, SHIPLOG_DEPLOYMENT_TRACKER_ANNOTATIONS: "perhaps" })).toThrow(
      /SHIPLOG_DEPLOYMENT_TRACKER_ANNOTATIONS: must be true or false/,
    );
  });
});
