import type { ClusterScript } from "./scripting.js";

/** A few workloads for the demo: a Deployment, one with a sidecar, a StatefulSet, a DaemonSet and a CronJob run. */
export async function seedDemoWorkloads(script: ClusterScript): Promise<void> {
  await script.createDeployment({ namespace: "shop", name: "web", image: "nginx:1.25", replicas: 2 });
  await script.createDeployment({
    namespace: "shop",
    name: "api",
    containers: [{ name: "api", image: "ghcr.io/acme/api:1.4.0" }],
    initContainers: [{ name: "envoy", image: "envoyproxy/envoy:v1.30.1", restartPolicy: "Always" }],
    replicas: 2,
  });
  await script.createStatefulSet({ namespace: "data", name: "pg", image: "postgres:16.3", replicas: 2 });
  await script.createDaemonSet({ namespace: "kube-system", name: "node-agent", image: "ghcr.io/acme/node-agent:0.9" });
  await script.createCronJob({ namespace: "batch", name: "nightly-report", image: "ghcr.io/acme/report:2.1" });
  await script.triggerCronJob("batch", "nightly-report");
}
