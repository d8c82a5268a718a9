import { describe, expect, it } from "vitest";
import { computeDesiredState, mergeAnnotations, readIgnore, readRecordAnnotations } from "@shiplog/controller/internal";
import { MAPPING, deploymentWithPods, snapshot, workload } from "./kube-fixtures.js";
import { REPO, converged, recordOf, startHarness } from "./scenario-harness.js";

describe("readRecordAnnotations", () => {
  it("reads tags, runtime risks, repository and environments", () => {
    const { value, warnings } = readRecordAnnotations(
      {
        "tags.shiplog.dev/team": "payments",
        "tags.shiplog.dev/tier": "frontend",
        "shiplog.dev/runtime-risks": "sensitive-data, internet-exposed,internet-exposed",
        "shiplog.dev/repository": "web",
        "shiplog.dev/logical-environment": "staging",
        "shiplog.dev/physical-environment": "us-east-1",
        "unrelated/annotation": "x",
      },
      "app",
    );
    expect(warnings).toEqual([]);
    expect(value).toEqual({
      tags: { team: "payments", tier: "frontend" },
      runtimeRisks: ["internet-exposed", "sensitive-data"],
      repository: "web",
      logicalEnvironment: "staging",
      physicalEnvironment: "us-east-1",
    });
  });

  it("keeps at most 5 tags in key order and says which were skipped", () => {
    const annotations = Object.fromEntries(["f", "b", "a", "e", "d", "c"].map((k) => [`tags.shiplog.dev/${k}`, k]));
    const { value, warnings } = readRecordAnnotations(annotations, "app");
    expect(Object.keys(value.tags!)).toEqual(["a", "b", "c", "d", "e"]);
    expect(warnings).toEqual([{ annotation: "tags.shiplog.dev/f", reason: "at most 5 tags; tags are taken in key order" }]);
  });

  it("skips a tag or environment holding a control character, naming the rule, and keeps the others", () => {
    const { value, warnings } = readRecordAnnotations(
      {
        "tags.shiplog.dev/note": "line1\nline2",
        "tags.shiplog.dev/team": "payments",
        "tags.shiplog.dev/tab\tkey": "x",
        "shiplog.dev/logical-environment": "prod\u0000",
        "shiplog.dev/physical-environment": "eu\u001b[31m",
      },
      "app",
    );
    expect(value).toEqual({ tags: { team: "payments" } });
    const rule = "must be a single line: no control characters (line breaks, tabs, NUL, escapes)";
    expect(warnings.map((w) => [w.annotation, w.reason])).toEqual([
      ["tags.shiplog.dev/note", rule],
      ["tags.shiplog.dev/tab\tkey", rule],
      ["shiplog.dev/logical-environment", rule],
      ["shiplog.dev/physical-environment", rule],
    ]);
  });

  it("a workload whose tag annotation breaks a line still gets its record, without that tag, from the service", async () => {
    const h = await startHarness();
    try {
      await h.cluster.script.createDeployment({
        namespace: "shop",
        name: "web",
        image: "nginx:1.25",
        annotations: { ...REPO, "tags.shiplog.dev/note": "line1\nline2", "tags.shiplog.dev/team": "payments" },
      });
      await converged(h);
      expect(recordOf(h.emulator, "shop-web-nginx")!.tags).toEqual({ team: "payments" });
    } finally {
      await h.stop();
    }
  });

  it("skips a tag value over 100 characters, keeping the others", () => {
    const { value, warnings } = readRecordAnnotations(
      { "tags.shiplog.dev/long": "x".repeat(101), "tags.shiplog.dev/ok": "y".repeat(100) },
      "app",
    );
    expect(value.tags).toEqual({ ok: "y".repeat(100) });
    expect(warnings[0]!.annotation).toBe("tags.shiplog.dev/long");
  });

  it("skips the runtime-risks annotation when a value is unknown", () => {
    const { value, warnings } = readRecordAnnotations({ "shiplog.dev/runtime-risks": "internet-exposed,pci" }, "app");
    expect(value.runtimeRisks).toBeUndefined();
    expect(warnings[0]!.reason).toContain('unknown runtime risk "pci"');
  });

  it("skips an invalid repository, and lets a per-container repository win", () => {
    expect(readRecordAnnotations({ "shiplog.dev/repository": "acme/web" }, "app").warnings[0]!.reason).toContain("repository must be");
    expect(readRecordAnnotations({ "shiplog.dev/repository": "r".repeat(101) }, "app").value.repository).toBeUndefined();
    const annotations = {
      "shiplog.dev/repository": "web",
      "shiplog.dev/repository.istio-proxy": "",
      "shiplog.dev/repository.worker": "jobs",
    };
    expect(readRecordAnnotations(annotations, "app").value.repository).toBe("web");
    expect(readRecordAnnotations(annotations, "istio-proxy").value.repository).toBeUndefined();
    expect(readRecordAnnotations(annotations, "worker").value.repository).toBe("jobs");
  });

  it("validates environments and the ignore flag", () => {
    const { value, warnings } = readRecordAnnotations(
      { "shiplog.dev/logical-environment": "", "shiplog.dev/physical-environment": "p".repeat(129), "shiplog.dev/ignore": "yes" },
      "app",
    );
    expect(value).toEqual({});
    expect(warnings.map((w) => w.annotation)).toEqual([
      "shiplog.dev/logical-environment",
      "shiplog.dev/physical-environment",
      "shiplog.dev/ignore",
    ]);
  });

  it('reads the ignore flag in one place: only "true" ignores; anything but true/false is a warning', () => {
    expect(readIgnore({ "shiplog.dev/ignore": "true" })).toEqual({ ignore: true });
    expect(readIgnore({ "shiplog.dev/ignore": "false" })).toEqual({ ignore: false });
    expect(readIgnore({})).toEqual({ ignore: false });
    expect(readIgnore({ "shiplog.dev/ignore": "yes" })).toEqual({
      ignore: false,
      warning: { annotation: "shiplog.dev/ignore", reason: 'must be "true" or "false"' },
    });
  });

  it("an ignored workload neither records nor holds names, whether its pods or its template say so", () => {
    const d = deploymentWithPods("web", { annotations: { "shiplog.dev/ignore": "true" } });
    expect(computeDesiredState(snapshot({ pods: d.pods, workloads: d.workloads }), MAPPING)).toMatchObject({
      records: new Map(),
      held: new Set(),
    });
    const idle = workload("Deployment", "idle", { replicas: 1 });
    idle.spec!.template!.metadata = { annotations: { "shiplog.dev/ignore": "true" } };
    expect(computeDesiredState(snapshot({ workloads: [{ kind: "Deployment", object: idle }] }), MAPPING).held.size).toBe(0);
  });

  it("merges workload then pod annotations, pod winning key by key", () => {
    expect(mergeAnnotations({ a: "workload", b: "workload" }, undefined, { b: "pod" })).toEqual({ a: "workload", b: "pod" });
  });
});
