// Checks on rendered manifests: schema validation with kubernetes-models, an RBAC evaluator that answers "may this
// ServiceAccount do this request?" the way the API server's RBAC authorizer does, and what the kubelet would hand
// the container (environment and mounted Secret files).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PrometheusRule, ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { Deployment } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { ConfigMap, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import type { Manifest } from "./helm.js";

type Validatable = { validate(): void };
const MODELS: Record<string, new (data: never) => Validatable> = {
  "apps/v1/Deployment": Deployment,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "rbac.authorization.k8s.io/v1/ClusterRole": ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": ClusterRoleBinding,
  "rbac.authorization.k8s.io/v1/Role": Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": RoleBinding,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/ServiceAccount": ServiceAccount,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
  "monitoring.coreos.com/v1/PrometheusRule": PrometheusRule,
  "v1/ConfigMap": ConfigMap,
};

/** Validates a manifest against its Kubernetes schema; throws naming the object and the problem. */
export function validateManifest(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!Model) throw new Error(`${manifest.source}: no schema for ${manifest.apiVersion} ${manifest.kind}`);
  const { source: _source, ...object } = manifest;
  try {
    new Model(object as never).validate();
  } catch (error) {
    throw new Error(`${manifest.source}: ${manifest.kind} ${manifest.metadata.name} is invalid: ${(error as Error).message}`);
  }
}

/** The objects of one kind. */
export function ofKind<T = Record<string, unknown>>(manifests: readonly Manifest[], kind: string): (Manifest & T)[] {
  return manifests.filter((m) => m.kind === kind) as (Manifest & T)[];
}

/** The one object of a kind; throws when there is not exactly one. */
export function one<T = Record<string, unknown>>(manifests: readonly Manifest[], kind: string): Manifest & T {
  const found = ofKind<T>(manifests, kind);
  if (found.length !== 1) throw new Error(`expected one ${kind}, found ${found.length}`);
  return found[0]!;
}

/** True when every key of `selector` is in `labels` with the same value. */
export function selects(selector: Record<string, string> | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** A request to the Kubernetes API, as the RBAC authorizer sees it. */
export interface ResourceRequest {
  verb: string;
  group: string;
  resource: string;
  namespace?: string;
  name?: string;
}

interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** Whether the rendered RBAC lets the ServiceAccount make the request. */
export function authorizes(
  manifests: readonly Manifest[],
  account: { name: string; namespace: string },
  request: ResourceRequest,
): boolean {
  const roles = new Map(
    ofKind<{ rules: PolicyRule[] }>(manifests, "Role").map((r) => [`${r.metadata.namespace}/${r.metadata.name}`, r.rules]),
  );
  const clusterRoles = new Map(ofKind<{ rules: PolicyRule[] }>(manifests, "ClusterRole").map((r) => [r.metadata.name, r.rules]));
  type Binding = Manifest & { roleRef: { kind: string; name: string }; subjects: { kind: string; name: string; namespace?: string }[] };
  const boundTo = (b: Binding) =>
    b.subjects.some((s) => s.kind === "ServiceAccount" && s.name === account.name && s.namespace === account.namespace);
  const allows = (rules: PolicyRule[] | undefined) =>
    (rules ?? []).some(
      (rule) =>
        (rule.apiGroups ?? []).some((g) => g === "*" || g === request.group) &&
        (rule.resources ?? []).some((r) => r === "*" || r === request.resource) &&
        rule.verbs.some((v) => v === "*" || v === request.verb) &&
        (!rule.resourceNames ||
          rule.resourceNames.length === 0 ||
          (request.name !== undefined && rule.resourceNames.includes(request.name))),
    );
  for (const binding of ofKind(manifests, "ClusterRoleBinding") as Binding[]) {
    if (boundTo(binding) && binding.roleRef.kind === "ClusterRole" && allows(clusterRoles.get(binding.roleRef.name))) return true;
  }
  if (request.namespace === undefined) return false;
  for (const binding of ofKind(manifests, "RoleBinding") as Binding[]) {
    if (binding.metadata.namespace !== request.namespace || !boundTo(binding)) continue;
    const rules =
      binding.roleRef.kind === "Role" ? roles.get(`${request.namespace}/${binding.roleRef.name}`) : clusterRoles.get(binding.roleRef.name);
    if (allows(rules)) return true;
  }
  return false;
}

/** Every (group, resource, verb) the rendered RBAC grants, with the namespace of a Role ("*" for a ClusterRole). */
export function grants(
  manifests: readonly Manifest[],
): { scope: string; group: string; resource: string; verb: string; resourceNames?: string[] }[] {
  const out: { scope: string; group: string; resource: string; verb: string; resourceNames?: string[] }[] = [];
  for (const role of [
    ...ofKind<{ rules: PolicyRule[] }>(manifests, "Role"),
    ...ofKind<{ rules: PolicyRule[] }>(manifests, "ClusterRole"),
  ]) {
    for (const rule of role.rules) {
      for (const group of rule.apiGroups ?? []) {
        for (const resource of rule.resources ?? []) {
          for (const verb of rule.verbs) {
            out.push({
              scope: role.metadata.namespace ?? "*",
              group,
              resource,
              verb,
              ...(rule.resourceNames ? { resourceNames: rule.resourceNames } : {}),
            });
          }
        }
      }
    }
  }
  return out;
}

/** The container of a Deployment's pod template, by name. */
export interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: unknown } }[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  securityContext?: Record<string, unknown>;
}

/**
 * What the kubelet gives the container: its environment (downward-API fields resolved) and the Secret volumes
 * written under `root`, with every mount path mapped below `root`. Paths in env values are rewritten the same way.
 */
export function containerEnvironment(
  deployment: Manifest,
  secrets: readonly Manifest[],
  root: string,
): { env: Record<string, string>; mountPath(path: string): string } {
  const spec = (deployment as unknown as { spec: { template: { metadata: { name?: string }; spec: PodSpecLike } } }).spec.template.spec;
  const container = spec.containers[0]!;
  const mounts = container.volumeMounts ?? [];
  const mapped = (path: string) => {
    const mount = mounts.find((m) => path === m.mountPath || path.startsWith(`${m.mountPath}/`));
    return mount ? join(root, mount.name, path.slice(mount.mountPath.length)) : path;
  };
  for (const mount of mounts) {
    const volume = spec.volumes?.find((v) => v.name === mount.name);
    const dir = join(root, mount.name);
    mkdirSync(dir, { recursive: true });
    if (!volume?.secret) continue;
    const secret = secrets.find((s) => s.metadata.name === volume.secret!.secretName);
    if (!secret) continue; // an existing Secret the test supplies itself
    const data = (secret as unknown as { data: Record<string, string> }).data;
    for (const item of volume.secret.items ?? Object.keys(data).map((key) => ({ key, path: key }))) {
      writeFileSync(join(dir, item.path), Buffer.from(data[item.key] ?? "", "base64"));
    }
  }
  const env: Record<string, string> = {};
  const fields: Record<string, string> = {
    "metadata.name": `${deployment.metadata.name}-7d9c8b6f5-x2x4q`,
    "metadata.namespace": deployment.metadata.namespace ?? "default",
  };
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined) env[variable.name] = variable.value.startsWith("/") ? mapped(variable.value) : variable.value;
    else if (variable.valueFrom?.fieldRef) env[variable.name] = fields[variable.valueFrom.fieldRef.fieldPath] ?? "";
  }
  return { env, mountPath: mapped };
}

interface PodSpecLike {
  containers: Container[];
  volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
}

const VERBS: Record<string, string> = { POST: "create", PUT: "update", PATCH: "patch" };

/** Parses an API path and method into the request the RBAC authorizer evaluates. */
export function resourceRequest(method: string, rawUrl: string): ResourceRequest | undefined {
  const url = new URL(rawUrl, "http://proxy");
  const parts = url.pathname.split("/").filter(Boolean);
  let rest: string[];
  let group: string;
  if (parts[0] === "api" && parts.length >= 3) {
    group = "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 4) {
    group = parts[1]!;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  if (!resource) return undefined;
  let verb: string;
  if (method === "GET") verb = url.searchParams.get("watch") === "true" ? "watch" : name ? "get" : "list";
  else if (method === "DELETE") verb = name ? "delete" : "deletecollection";
  else verb = VERBS[method] ?? method.toLowerCase();
  return {
    verb,
    group,
    resource: subresource ? `${resource}/${subresource}` : resource,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}
