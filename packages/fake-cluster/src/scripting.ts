import type { ControlLoop } from "./control-loop.js";
import type { DeleteOptions, GarbageCollector } from "./garbage-collector.js";
import type { ImageRegistry } from "./image-digests.js";
import { parseImage } from "./image-digests.js";
import type { KubeObject } from "./kube-object.js";
import { cloneObject } from "./kube-object.js";
import type { Kubelet } from "./kubelet.js";
import type { CronJob, DaemonSet, Deployment, Job, ObjectOf, Pod, PodStatus, StatefulSet, Workload } from "./object-kinds.js";
import type { ObjectStore } from "./object-store.js";
import { kindOf } from "./object-store.js";
import { badRequest } from "./status.js";
import { DecodeError, decodeObject } from "./validation/index.js";
import type { ResourceName } from "./resource-kinds.js";
import type { WorkloadSimulator } from "./workload-simulator.js";

/** A container as in a pod spec (only name and image are required). */
export interface ContainerSpec {
  name: string;
  image: string;
  restartPolicy?: "Always";
  [key: string]: unknown;
}

/** Shorthand for a workload or pod. */
export interface WorkloadSpec {
  name: string;
  namespace?: string;
  /** One container named after the image (e.g. "nginx"); or give `containers`. */
  image?: string;
  containers?: ContainerSpec[];
  /** Init containers; `restartPolicy: "Always"` makes a sidecar. */
  initContainers?: ContainerSpec[];
  /** Labels of the workload and its pods (default `{ app: name }`). */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  replicas?: number;
  /** Resolve once the simulation has settled (default true). */
  wait?: boolean;
}

/** Options for createPod. */
export interface PodSpec extends WorkloadSpec {
  nodeName?: string;
  ephemeralContainers?: ContainerSpec[];
}

/** Options for createJob. */
export interface JobSpec extends WorkloadSpec {
  completions?: number;
  parallelism?: number;
}

/** Options for createCronJob. */
export interface CronJobSpec extends WorkloadSpec {
  schedule?: string;
}

function containerName(image: string): string {
  const repo = parseImage(image).repository;
  const last = repo
    .slice(repo.lastIndexOf("/") + 1)
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .replace(/^-+|-+$/g, "");
  return last || "main";
}

function podSpec(spec: WorkloadSpec, restartPolicy?: string): Record<string, unknown> {
  if (!spec.containers && !spec.image) throw new TypeError(`spec: workload "${spec.name}" needs image or containers`);
  const containers = spec.containers ?? [{ name: containerName(spec.image!), image: spec.image! }];
  const out: Record<string, unknown> = { containers };
  if (spec.initContainers) out.initContainers = spec.initContainers;
  if (restartPolicy) out.restartPolicy = restartPolicy;
  return out;
}

function templateOf(spec: WorkloadSpec, labels: Record<string, string>, restartPolicy?: string) {
  return { metadata: { labels }, spec: podSpec(spec, restartPolicy) };
}

function metaOf(spec: WorkloadSpec, labels: Record<string, string>) {
  const meta: KubeObject["metadata"] = { name: spec.name, namespace: spec.namespace ?? "default", labels };
  if (spec.annotations) meta.annotations = spec.annotations;
  return meta;
}

/**
 * Scripting API for tests and the demo. Calls act through the same store, controllers and watch events as the
 * HTTP API; with `wait` (default) they resolve once the simulation has settled, so no sleeping is needed.
 */
export class ClusterScript {
  constructor(
    private readonly store: ObjectStore,
    private readonly loop: ControlLoop,
    private readonly gc: GarbageCollector,
    private readonly kubelet: Kubelet,
    private readonly workloads: WorkloadSimulator,
    private readonly images: ImageRegistry,
  ) {}

  private async finish<R extends ResourceName>(resource: R, obj: ObjectOf<R>, wait: boolean | undefined): Promise<ObjectOf<R>> {
    if (wait !== false) await this.loop.settle();
    return cloneObject(this.store.get(resource, obj.metadata.namespace, obj.metadata.name!) ?? obj);
  }

  /** Creates the namespace if it does not exist. */
  ensureNamespace(name: string): void {
    if (!this.store.get("namespaces", undefined, name))
      this.store.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  }

  /** Creates any object as POST would (namespace created on demand). */
  async create<R extends ResourceName>(resource: R, object: KubeObject, options: { wait?: boolean } = {}): Promise<ObjectOf<R>> {
    let input: KubeObject;
    try {
      input = decodeObject(resource, cloneObject(object)).value as KubeObject;
    } catch (error) {
      if (error instanceof DecodeError) throw badRequest(`${kindOf(resource).kind} cannot be handled: ${error.message}`);
      throw error;
    }
    input.metadata ??= {};
    if (input.metadata.namespace && resource !== "namespaces") this.ensureNamespace(input.metadata.namespace);
    return this.finish(resource, this.store.create(resource, input), options.wait);
  }

  private deploymentObject(spec: WorkloadSpec): KubeObject {
    const labels = spec.labels ?? { app: spec.name };
    return {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: metaOf(spec, labels),
      spec: { replicas: spec.replicas ?? 1, selector: { matchLabels: labels }, template: templateOf(spec, labels) },
    };
  }

  /** Creates a Deployment; resolves when its ReplicaSet and pods are Running. */
  createDeployment(spec: WorkloadSpec): Promise<Deployment> {
    return this.create("deployments", this.deploymentObject(spec), { wait: spec.wait });
  }

  /** Creates many Deployments at once (benchmarks); with `wait` resolves once all pods are Running. */
  async createDeployments(specs: WorkloadSpec[], options: { wait?: boolean } = {}): Promise<Deployment[]> {
    const created = specs.map((s) => {
      this.ensureNamespace(s.namespace ?? "default");
      return this.store.create("deployments", this.deploymentObject(s));
    });
    if (options.wait !== false) await this.loop.settle();
    return created.map((d) => cloneObject(this.store.get("deployments", d.metadata.namespace, d.metadata.name!) ?? d));
  }

  /** Creates a StatefulSet (pods `<name>-0..n-1`). */
  createStatefulSet(spec: WorkloadSpec): Promise<StatefulSet> {
    const labels = spec.labels ?? { app: spec.name };
    return this.create(
      "statefulsets",
      {
        apiVersion: "apps/v1",
        kind: "StatefulSet",
        metadata: metaOf(spec, labels),
        spec: {
          replicas: spec.replicas ?? 1,
          serviceName: spec.name,
          selector: { matchLabels: labels },
          template: templateOf(spec, labels),
        },
      },
      { wait: spec.wait },
    );
  }

  /** Creates a DaemonSet (one pod per node). */
  createDaemonSet(spec: WorkloadSpec): Promise<DaemonSet> {
    const labels = spec.labels ?? { app: spec.name };
    return this.create(
      "daemonsets",
      {
        apiVersion: "apps/v1",
        kind: "DaemonSet",
        metadata: metaOf(spec, labels),
        spec: { selector: { matchLabels: labels }, template: templateOf(spec, labels) },
      },
      { wait: spec.wait },
    );
  }

  /** Creates a Job; its pods run until `completePod`. */
  createJob(spec: JobSpec): Promise<Job> {
    const labels = spec.labels ?? { app: spec.name };
    const jobSpec: Record<string, unknown> = { template: templateOf(spec, labels, "Never") };
    if (spec.completions !== undefined) jobSpec.completions = spec.completions;
    if (spec.parallelism !== undefined) jobSpec.parallelism = spec.parallelism;
    return this.create("jobs", { apiVersion: "batch/v1", kind: "Job", metadata: metaOf(spec, labels), spec: jobSpec }, { wait: spec.wait });
  }

  /** Creates a CronJob; use `triggerCronJob` to run it. */
  createCronJob(spec: CronJobSpec): Promise<CronJob> {
    const labels = spec.labels ?? { app: spec.name };
    return this.create(
      "cronjobs",
      {
        apiVersion: "batch/v1",
        kind: "CronJob",
        metadata: metaOf(spec, labels),
        spec: {
          schedule: spec.schedule ?? "*/5 * * * *",
          jobTemplate: { metadata: { labels }, spec: { template: templateOf(spec, labels, "Never") } },
        },
      },
      { wait: spec.wait },
    );
  }

  /** Creates a bare pod (no owner). */
  createPod(spec: PodSpec): Promise<Pod> {
    const labels = spec.labels ?? { app: spec.name };
    const podSpecObj = podSpec(spec);
    if (spec.nodeName) podSpecObj.nodeName = spec.nodeName;
    if (spec.ephemeralContainers) podSpecObj.ephemeralContainers = spec.ephemeralContainers;
    return this.create("pods", { apiVersion: "v1", kind: "Pod", metadata: metaOf(spec, labels), spec: podSpecObj }, { wait: spec.wait });
  }

  private async editTemplateImages<R extends ResourceName>(
    resource: R,
    namespace: string,
    name: string,
    image: string | Record<string, string>,
    wait?: boolean,
  ): Promise<ObjectOf<R>> {
    const obj = cloneObject(this.store.getOrThrow(resource, namespace, name));
    const template = resource === "cronjobs" ? (obj as CronJob).spec?.jobTemplate?.spec?.template : (obj as Workload | Job).spec?.template;
    const containers = template?.spec?.containers ?? [];
    if (typeof image === "string") for (const c of containers) c.image = image;
    else {
      for (const [container, img] of Object.entries(image)) {
        const c = [...containers, ...(template?.spec?.initContainers ?? [])].find((x) => x.name === container);
        if (!c) throw new TypeError(`image: ${resource} "${name}" has no container named "${container}"`);
        c.image = img;
      }
    }
    return this.finish(resource, this.store.update(resource, obj), wait);
  }

  /** Rolls a Deployment to a new image (all containers, or a container-name -> image map); resolves when complete. */
  setImage(namespace: string, name: string, image: string | Record<string, string>, options: { wait?: boolean } = {}): Promise<Deployment> {
    return this.editTemplateImages("deployments", namespace, name, image, options.wait);
  }

  /** Changes the image of a StatefulSet, DaemonSet, CronJob or Deployment template. */
  setWorkloadImage<R extends "deployments" | "statefulsets" | "daemonsets" | "cronjobs">(
    resource: R,
    namespace: string,
    name: string,
    image: string | Record<string, string>,
    options: { wait?: boolean } = {},
  ): Promise<ObjectOf<R>> {
    return this.editTemplateImages(resource, namespace, name, image, options.wait);
  }

  /** Sets spec.replicas of a Deployment, ReplicaSet or StatefulSet. */
  scale<R extends "deployments" | "replicasets" | "statefulsets">(
    resource: R,
    namespace: string,
    name: string,
    replicas: number,
    options: { wait?: boolean } = {},
  ): Promise<ObjectOf<R>> {
    if (!Number.isInteger(replicas) || replicas < 0) throw new TypeError(`replicas: must be a non-negative integer, got ${replicas}`);
    const obj = cloneObject(this.store.getOrThrow(resource, namespace, name));
    obj.spec = { ...obj.spec, replicas };
    return this.finish(resource, this.store.update(resource, obj), options.wait);
  }

  /** Deletes as DELETE would; with `wait` resolves after propagation and GC. Returns the last state. */
  async delete<R extends ResourceName>(
    resource: R,
    namespace: string | undefined,
    name: string,
    options: DeleteOptions & { wait?: boolean } = {},
  ): Promise<ObjectOf<R>> {
    const result = this.gc.delete(resource, namespace, name, options);
    if (options.wait !== false) await this.loop.settle();
    return cloneObject(this.store.get(resource, namespace, name) ?? (result.object as ObjectOf<R>));
  }

  /** Removes all finalizers (an object marked for deletion then goes). */
  async removeFinalizers<R extends ResourceName>(
    resource: R,
    namespace: string | undefined,
    name: string,
    options: { wait?: boolean } = {},
  ): Promise<ObjectOf<R>> {
    const obj = this.store.getOrThrow(resource, namespace, name);
    const written = this.store.write(resource, { ...obj, metadata: { ...obj.metadata, finalizers: [] } });
    if (options.wait !== false) await this.loop.settle();
    return cloneObject(this.store.get(resource, namespace, name) ?? written);
  }

  /** Runs a CronJob now: creates its Job (and pod). Returns the Job. */
  async triggerCronJob(namespace: string, name: string, options: { wait?: boolean } = {}): Promise<Job> {
    return this.finish("jobs", this.workloads.jobs.trigger(namespace, name), options.wait);
  }

  /** The pod's containers exit with `exitCode` (0: Succeeded, else Failed). */
  completePod(namespace: string, name: string, options: { exitCode?: number; wait?: boolean } = {}): Promise<Pod> {
    const pod = this.store.getOrThrow("pods", namespace, name);
    return this.finish("pods", this.kubelet.complete(pod, options.exitCode ?? 0), options.wait);
  }

  /** Future pulls of `image` report `digest` ("sha256:<64 hex>"). */
  setImageDigest(image: string, digest: string): void {
    this.images.setDigest(image, digest);
  }

  /** The container (or all running containers) restarts and re-pulls: imageID follows the current digest. */
  repullImage(namespace: string, pod: string, container?: string, options: { wait?: boolean } = {}): Promise<Pod> {
    return this.finish("pods", this.kubelet.repull(this.store.getOrThrow("pods", namespace, pod), container), options.wait);
  }

  /** Sets the imageID a container reports, directly. */
  setContainerImageId(namespace: string, pod: string, container: string, imageID: string, options: { wait?: boolean } = {}): Promise<Pod> {
    const obj = this.store.getOrThrow("pods", namespace, pod);
    let found = false;
    const status: PodStatus = { ...obj.status };
    for (const field of ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"] as const) {
      const statuses = status[field];
      if (!statuses) continue;
      status[field] = statuses.map((s) => {
        if (s.name !== container) return s;
        found = true;
        return { ...s, imageID };
      });
    }
    if (!found) throw new TypeError(`container: pod "${pod}" reports no container named "${container}"`);
    return this.finish("pods", this.store.write("pods", { ...obj, status }), options.wait);
  }

  /** Adds an ephemeral (debug) container to a pod; the kubelet starts it. */
  addEphemeralContainer(namespace: string, pod: string, container: ContainerSpec, options: { wait?: boolean } = {}): Promise<Pod> {
    const obj = this.store.getOrThrow("pods", namespace, pod);
    const spec = { ...obj.spec, ephemeralContainers: [...(obj.spec?.ephemeralContainers ?? []), container] };
    return this.finish("pods", this.store.write("pods", { ...obj, spec }), options.wait);
  }

  /** New pods stay Pending (scheduled but not started) until `resumeKubelet`. */
  pauseKubelet(): void {
    this.kubelet.setPaused(true);
  }

  /** Starts pods again; resolves when the simulation has settled. */
  async resumeKubelet(): Promise<void> {
    this.kubelet.setPaused(false);
    await this.loop.settle();
  }
}
