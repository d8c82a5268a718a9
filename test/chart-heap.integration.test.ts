// The controller's heap cap follows the pod's memory limit, so raising the limit for a large cluster is enough: a
// fixed cap would end the controller with "heap out of memory" at any limit.
import { describe, expect, it } from "vitest";
import { renderChart, type Manifest } from "./chart/helm.js";
import { one, type Container } from "./chart/kube-manifests.js";

const REQUIRED = { config: { org: "acme", cluster: "prod-eu-1", logicalEnvironment: "production" }, token: { value: "t" } };
const RELEASE = { releaseName: "shiplog", namespace: "shiplog" } as const;

type Deployment = Manifest & { spec: { template: { spec: { containers: Container[] } } } };

describe("Helm chart: the heap cap", () => {
  const render = (...values: object[]) => renderChart({ ...RELEASE, values: [REQUIRED, ...values] });
  const nodeOptions = (...values: object[]) => {
    const result = render(...values);
    if (!result.ok) throw new Error(result.stderr);
    const env = one<Deployment>(result.manifests, "Deployment").spec.template.spec.containers[0]!.env ?? [];
    return env.find((e) => e.name === "NODE_OPTIONS")?.value;
  };

  it.each([
    [{}, 256],
    [{ resources: { limits: { memory: "768Mi" } } }, 384],
    [{ resources: { limits: { memory: "1Gi" } } }, 512],
    [{ resources: { limits: { memory: "1G" } } }, 476],
    [{ resources: { limits: { memory: "200Mi" } } }, 128],
    [{ resources: { limits: null } }, 128],
    [{ resources: { limits: { memory: "1Gi" } }, maxHeapMb: 300 }, 300],
  ])("%j: --max-old-space-size=%d", (values, mb) => {
    expect(nodeOptions(values)).toBe(`--max-old-space-size=${mb} --max-semi-space-size=8`);
  });

  it("a limit it cannot read is refused, naming the setting to use instead", () => {
    const result = render({ resources: { limits: { memory: "1.5Gi" } } });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain("resources.limits.memory 1.5Gi: the heap cap is derived only from whole Mi, Gi, M or G; set maxHeapMb");
  });

  it("maxHeapMb below 64 is refused by the schema", () => {
    const result = render({ maxHeapMb: 32 });
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain("- at '/maxHeapMb': minimum: got 32, want 64");
  });
});
