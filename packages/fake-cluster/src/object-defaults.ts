import type { JsonObject, KubeObject } from "./kube-object.js";
import type { Container, CronJobSpec, DeploymentSpec, Job, JobSpec, Pod, PodSpec, PodTemplate, WorkloadSpec } from "./object-kinds.js";
import type { ResourceName } from "./resource-kinds.js";

/** Sets the fields of `defaults` that `target` lacks, in place (keeps the caller's key order first). */
function fill(target: JsonObject, defaults: JsonObject): void {
  for (const [key, value] of Object.entries(defaults)) if (target[key] === undefined) target[key] = value;
}

/** The image pull policy the API server defaults: Always for `:latest` or no tag, else IfNotPresent. */
function defaultPullPolicy(image: string | undefined): string {
  if (!image || image.includes("@")) return "IfNotPresent";
  const lastPart = image.slice(image.lastIndexOf("/") + 1);
  const colon = lastPart.lastIndexOf(":");
  return colon < 0 || lastPart.slice(colon + 1) === "latest" ? "Always" : "IfNotPresent";
}

const EMPTY = Object.freeze({});

/** A container with the API server's defaults; the same object when it already has them all (the common case). */
function containerDefaults(c: Container): Container {
  const ports = Array.isArray(c.ports) && c.ports.some((p) => p.protocol === undefined) ? c.ports : undefined;
  if (
    c.resources !== undefined &&
    c.terminationMessagePath !== undefined &&
    c.terminationMessagePolicy !== undefined &&
    c.imagePullPolicy !== undefined &&
    !ports
  )
    return c;
  const out = { ...c };
  if (out.resources === undefined) out.resources = EMPTY;
  if (out.terminationMessagePath === undefined) out.terminationMessagePath = "/dev/termination-log";
  if (out.terminationMessagePolicy === undefined) out.terminationMessagePolicy = "File";
  if (out.imagePullPolicy === undefined) out.imagePullPolicy = defaultPullPolicy(c.image);
  if (ports) out.ports = ports.map((p) => (p.protocol === undefined ? { ...p, protocol: "TCP" } : p));
  return out;
}

function containerListDefaults(list: Container[]): Container[] {
  let changed = false;
  const out = list.map((c) => {
    const d = containerDefaults(c);
    if (d !== c) changed = true;
    return d;
  });
  return changed ? out : list;
}

/** SetDefaults_PodSpec and the container defaults, for pods and pod templates alike (a hot path: no needless copies). */
export function podSpecDefaults(spec: PodSpec): PodSpec {
  const out = { ...spec };
  if (out.restartPolicy === undefined) out.restartPolicy = "Always";
  if (out.terminationGracePeriodSeconds === undefined) out.terminationGracePeriodSeconds = 30;
  if (out.dnsPolicy === undefined) out.dnsPolicy = "ClusterFirst";
  if (out.securityContext === undefined) out.securityContext = EMPTY;
  if (out.schedulerName === undefined) out.schedulerName = "default-scheduler";
  if (Array.isArray(out.containers)) out.containers = containerListDefaults(out.containers);
  if (Array.isArray(out.initContainers)) out.initContainers = containerListDefaults(out.initContainers);
  if (Array.isArray(out.ephemeralContainers)) out.ephemeralContainers = containerListDefaults(out.ephemeralContainers);
  return out;
}

function templateDefaults(template: PodTemplate | undefined): PodTemplate | undefined {
  if (template === undefined || template === null) return template;
  const spec = template.spec;
  return { ...template, spec: spec === undefined || spec === null || typeof spec !== "object" ? spec : podSpecDefaults(spec) };
}

/**
 * The API server's defaulting of a decoded object's spec, on create and on every update (what a client leaves out
 * comes back filled in): pod specs and templates, workload specs.
 */
export function applySpecDefaults(resource: ResourceName, obj: KubeObject): KubeObject {
  switch (resource) {
    case "pods": {
      // podSpecDefaults copies the spec itself.
      const spec = (obj as Pod).spec;
      // The ServiceAccount admission plugin and the priority admission fill these for pods only.
      const out = podSpecDefaults(spec ?? {});
      if (out.serviceAccountName === undefined) out.serviceAccountName = "default";
      if (out.serviceAccount === undefined) out.serviceAccount = out.serviceAccountName;
      if (out.enableServiceLinks === undefined) out.enableServiceLinks = true;
      if (out.priority === undefined) out.priority = 0;
      if (out.preemptionPolicy === undefined) out.preemptionPolicy = "PreemptLowerPriority";
      return { ...obj, spec: out };
    }
    default:
      return workloadSpecDefaults(resource, obj);
  }
}

function workloadSpecDefaults(resource: ResourceName, obj: KubeObject): KubeObject {
  const spec = obj.spec === undefined || obj.spec === null ? undefined : { ...obj.spec };
  switch (resource) {
    case "deployments": {
      const out: DeploymentSpec = spec ?? {};
      fill(out, { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 });
      const strategy: NonNullable<DeploymentSpec["strategy"]> = { type: "RollingUpdate", ...out.strategy };
      if (strategy.type === "RollingUpdate") strategy.rollingUpdate = { maxUnavailable: "25%", maxSurge: "25%", ...strategy.rollingUpdate };
      out.strategy = strategy;
      out.template = templateDefaults(out.template);
      return { ...obj, spec: out };
    }
    case "replicasets": {
      const out: WorkloadSpec = spec ?? {};
      fill(out, { replicas: 1 });
      out.template = templateDefaults(out.template);
      return { ...obj, spec: out };
    }
    case "statefulsets": {
      const out: WorkloadSpec = spec ?? {};
      fill(out, {
        replicas: 1,
        podManagementPolicy: "OrderedReady",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
        revisionHistoryLimit: 10,
        persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      });
      out.template = templateDefaults(out.template);
      return { ...obj, spec: out };
    }
    case "daemonsets": {
      const out: WorkloadSpec = spec ?? {};
      fill(out, { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 });
      out.template = templateDefaults(out.template);
      return { ...obj, spec: out };
    }
    case "jobs": {
      if (!spec) return obj;
      const jobSpec: JobSpec = spec;
      jobSpec.template = templateDefaults(jobSpec.template);
      return { ...obj, spec: jobSpec };
    }
    case "cronjobs": {
      if (!spec) return obj;
      fill(spec, { successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1, suspend: false, concurrencyPolicy: "Allow" });
      const cronJobSpec: CronJobSpec = spec;
      const jobTemplate = cronJobSpec.jobTemplate;
      if (jobTemplate?.spec)
        cronJobSpec.jobTemplate = { ...jobTemplate, spec: { ...jobTemplate.spec, template: templateDefaults(jobTemplate.spec.template) } };
      return { ...obj, spec };
    }
    case "namespaces":
      return { ...obj, spec: { finalizers: ["kubernetes"], ...spec } };
    default:
      return obj;
  }
}

/**
 * What the real API server does to an object on create beyond spec defaults: status is owned by controllers (pods
 * start Pending), Jobs get their controller-uid selector and labels.
 */
export function applyCreateDefaults(resource: ResourceName, obj: KubeObject): KubeObject {
  switch (resource) {
    case "pods":
      return { ...obj, status: { phase: "Pending", qosClass: "BestEffort" } };
    case "namespaces":
      return { ...obj, status: { phase: "Active" } };
    case "deployments":
    case "cronjobs":
      return { ...obj, status: {} };
    case "replicasets":
    case "statefulsets":
      return { ...obj, status: { replicas: 0 } };
    case "daemonsets":
      return { ...obj, status: { currentNumberScheduled: 0, desiredNumberScheduled: 0, numberMisscheduled: 0, numberReady: 0 } };
    case "jobs":
      return jobDefaults(obj);
    default:
      return obj;
  }
}

function jobDefaults(obj: KubeObject): KubeObject {
  const uid = obj.metadata.uid!;
  const name = obj.metadata.name!;
  const spec: JobSpec = (obj as Job).spec ?? {};
  const template: PodTemplate = spec.template ?? {};
  const jobLabels = {
    "batch.kubernetes.io/controller-uid": uid,
    "batch.kubernetes.io/job-name": name,
    "controller-uid": uid,
    "job-name": name,
  };
  return {
    ...obj,
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: 6,
      completionMode: "NonIndexed",
      suspend: false,
      podReplacementPolicy: "TerminatingOrFailed",
      ...spec,
      selector: spec.selector ?? { matchLabels: { "batch.kubernetes.io/controller-uid": uid } },
      template: { ...template, metadata: { ...template.metadata, labels: { ...template.metadata?.labels, ...jobLabels } } },
    },
    status: {},
  };
}
