// The controller benchmark's workloads: Deployments of 3 or 4 replicas (a third of them 4) and 1 to 3 containers,
// spread over namespaces, each image its own repository path, so every container is a deployment record.
/** One Deployment of the benchmark, and the images it runs now. */
export interface Spec {
  namespace: string;
  name: string;
  replicas: number;
  annotations: Record<string, string>;
  containers: { name: string; image: string }[];
}

const REPOSITORIES = ["web", "api", "infra"];

/** `count` Deployments over `namespaces` namespaces (about 3.33 pods and 2 records each). */
export function benchWorkloads(count: number, namespaces: number): Spec[] {
  return Array.from({ length: count }, (_, i) => ({
    namespace: `team-${i % namespaces}`,
    name: `svc-${i}`,
    replicas: i % 3 === 0 ? 4 : 3,
    annotations: { "shiplog.dev/repository": REPOSITORIES[i % 3]! },
    containers: Array.from({ length: 1 + (i % 3) }, (_, j) => ({ name: `c${j}`, image: `ghcr.io/acme/svc-${i}-c${j}:1.0` })),
  }));
}
