/** A kubeconfig as a plain object (the shape `KubeConfig.loadFromOptions` accepts, after renaming fields). */
export interface KubeconfigObject {
  apiVersion: "v1";
  kind: "Config";
  clusters: { name: string; cluster: { server: string; "insecure-skip-tls-verify": true } }[];
  users: { name: string; user: Record<string, never> }[];
  contexts: { name: string; context: { cluster: string; user: string; namespace: string } }[];
  "current-context": string;
}

/** Kubeconfig for the fake cluster: plain http needs insecure-skip-tls-verify for @kubernetes/client-node. */
export function kubeconfigFor(server: string, name = "shiplog-fake"): { object: KubeconfigObject; yaml: string } {
  const object: KubeconfigObject = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name, cluster: { server, "insecure-skip-tls-verify": true } }],
    users: [{ name: `${name}-user`, user: {} }],
    contexts: [{ name, context: { cluster: name, user: `${name}-user`, namespace: "default" } }],
    "current-context": name,
  };
  const yaml = [
    "apiVersion: v1",
    "kind: Config",
    "clusters:",
    `- name: ${name}`,
    "  cluster:",
    `    server: ${JSON.stringify(server)}`,
    "    insecure-skip-tls-verify: true",
    "users:",
    `- name: ${name}-user`,
    "  user: {}",
    "contexts:",
    `- name: ${name}`,
    "  context:",
    `    cluster: ${name}`,
    `    user: ${name}-user`,
    "    namespace: default",
    `current-context: ${name}`,
    "",
  ].join("\n");
  return { object, yaml };
}
