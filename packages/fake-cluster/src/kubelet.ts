import type { ControlLoop } from "./control-loop.js";
import type { ImageRegistry } from "./image-digests.js";
import { parseImage } from "./image-digests.js";
import type { Container, ContainerStatus, Pod, PodStatus } from "./object-kinds.js";
import { sha256Hex } from "./name-generator.js";
import type { ObjectStore } from "./object-store.js";

const CONDITION_TYPES = ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];

/**
 * Scheduler + kubelet for the simulated nodes: binds pods to nodes round-robin, starts them (Pending -> Running,
 * Ready, container statuses with imageIDs), restarts containers whose spec image changed, starts ephemeral
 * containers, finishes graceful deletions, and lets scripts complete pods or re-pull images.
 */
export class Kubelet {
  private nextNode = 0;
  private podIps = 0;
  private paused = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly loop: ControlLoop,
    private readonly images: ImageRegistry,
    private readonly nodes: readonly string[],
  ) {
    loop.handle("kubelet", (key) => this.sync(key));
    store.subscribe((e) => {
      if (e.resource === "pods" && e.type !== "DELETED")
        this.loop.enqueue("kubelet", `${e.object.metadata.namespace}/${e.object.metadata.name}`);
    });
  }

  /** While paused, pods are scheduled but not started. */
  setPaused(paused: boolean): void {
    this.paused = paused;
    if (!paused) for (const key of this.store.keys("pods")) this.loop.enqueue("kubelet", key);
  }

  private sync(key: string): void {
    const slash = key.indexOf("/");
    const pod = this.store.get("pods", key.slice(0, slash), key.slice(slash + 1));
    if (!pod) return;
    const spec = pod.spec ?? {};
    if (pod.metadata.deletionTimestamp) {
      // Graceful termination ends at once: the containers "stop" and the kubelet confirms with grace 0.
      if ((pod.metadata.deletionGracePeriodSeconds ?? 0) > 0) {
        this.store.write("pods", { ...pod, metadata: { ...pod.metadata, deletionGracePeriodSeconds: 0 } });
      }
      return;
    }
    if (!spec.nodeName) {
      if (this.nodes.length === 0) return;
      const nodeName = this.nodes[this.nextNode++ % this.nodes.length]!;
      this.store.write("pods", {
        ...pod,
        spec: { ...spec, nodeName },
        status: {
          ...pod.status,
          conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: this.store.clock.timestamp() }],
        },
      });
      return;
    }
    const nodeIndex = this.nodes.indexOf(spec.nodeName);
    if (nodeIndex < 0 || this.paused) return;
    const phase = pod.status?.phase;
    if (phase === "Pending" || phase === undefined) {
      this.start(pod, nodeIndex);
      return;
    }
    if (phase === "Running") this.refresh(pod);
  }

  private start(pod: Pod, nodeIndex: number): void {
    const now = this.store.clock.timestamp();
    const spec = pod.spec ?? {};
    const ip = this.podIps++;
    const hostIP = `10.0.0.${10 + nodeIndex}`;
    const podIP = `10.244.${(ip >> 8) & 255}.${(ip & 255) + 0}`;
    const status: Record<string, unknown> = {
      ...pod.status,
      phase: "Running",
      conditions: CONDITION_TYPES.map((type) => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: now })),
      hostIP,
      hostIPs: [{ ip: hostIP }],
      podIP,
      podIPs: [{ ip: podIP }],
      startTime: now,
      qosClass: pod.status?.qosClass ?? "BestEffort",
      containerStatuses: (spec.containers ?? []).map((c) => this.runningStatus(pod, c, 0, now)),
    };
    if (spec.initContainers?.length) {
      status.initContainerStatuses = spec.initContainers.map((c) =>
        c.restartPolicy === "Always" ? this.runningStatus(pod, c, 0, now) : this.completedInitStatus(pod, c, now),
      );
    }
    if (spec.ephemeralContainers?.length) {
      status.ephemeralContainerStatuses = spec.ephemeralContainers.map((c) => ({ ...this.runningStatus(pod, c, 0, now), ready: false }));
    }
    this.store.write("pods", { ...pod, status });
  }

  /** Running pod: restart containers whose spec image changed; start new ephemeral containers. */
  private refresh(pod: Pod): void {
    const spec = pod.spec ?? {};
    const now = this.store.clock.timestamp();
    let changed = false;
    const restartChanged = (specs: Container[] | undefined, statuses: ContainerStatus[] | undefined): ContainerStatus[] | undefined => {
      if (!statuses) return statuses;
      return statuses.map((s) => {
        const c = specs?.find((x) => x.name === s.name);
        if (!c || !s.state?.running || parseImage(c.image).normalized === s.image) return s;
        changed = true;
        return {
          ...this.runningStatus(pod, c, s.restartCount + 1, now),
          lastState: {
            terminated: {
              exitCode: 0,
              reason: "Completed",
              startedAt: s.state.running.startedAt,
              finishedAt: now,
              containerID: s.containerID,
            },
          },
        };
      });
    };
    const status: PodStatus = { ...pod.status };
    status.containerStatuses = restartChanged(spec.containers, status.containerStatuses);
    if (status.initContainerStatuses) status.initContainerStatuses = restartChanged(spec.initContainers, status.initContainerStatuses);
    const known = new Set((status.ephemeralContainerStatuses ?? []).map((s) => s.name));
    const fresh = (spec.ephemeralContainers ?? []).filter((c) => !known.has(c.name));
    if (fresh.length > 0) {
      changed = true;
      status.ephemeralContainerStatuses = [
        ...(status.ephemeralContainerStatuses ?? []),
        ...fresh.map((c) => ({ ...this.runningStatus(pod, c, 0, now), ready: false })),
      ];
    }
    if (changed) this.store.write("pods", { ...pod, status });
  }

  /** The container restarts and reports what the registry serves for its image now. */
  repull(pod: Pod, containerName: string | undefined): Pod {
    const now = this.store.clock.timestamp();
    const specs = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...(pod.spec?.ephemeralContainers ?? [])];
    let matched = false;
    const restart = (statuses: ContainerStatus[] | undefined) =>
      statuses?.map((s) => {
        if (containerName !== undefined && s.name !== containerName) return s;
        const c = specs.find((x) => x.name === s.name);
        if (!c || !s.state?.running) return s;
        matched = true;
        return {
          ...this.runningStatus(pod, c, s.restartCount + 1, now),
          ready: s.ready,
          lastState: {
            terminated: {
              exitCode: 0,
              reason: "Completed",
              startedAt: s.state.running.startedAt,
              finishedAt: now,
              containerID: s.containerID,
            },
          },
        };
      });
    const status = { ...pod.status };
    for (const field of ["containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"] as const) {
      if (status[field]) status[field] = restart(status[field]);
    }
    if (!matched)
      throw new TypeError(
        `container: pod "${pod.metadata.name}" has no running container${containerName ? ` named "${containerName}"` : ""}`,
      );
    return this.store.write("pods", { ...pod, status });
  }

  /** Containers terminate with `exitCode`; the pod becomes Succeeded (0) or Failed. */
  complete(pod: Pod, exitCode: number): Pod {
    const now = this.store.clock.timestamp();
    const terminate = (s: ContainerStatus) => ({
      ...s,
      ready: false,
      started: false,
      state: {
        terminated: {
          exitCode,
          reason: exitCode === 0 ? "Completed" : "Error",
          startedAt: s.state?.running?.startedAt ?? now,
          finishedAt: now,
          containerID: s.containerID,
        },
      },
    });
    const status = {
      ...pod.status,
      phase: exitCode === 0 ? "Succeeded" : "Failed",
      conditions: (pod.status?.conditions ?? []).map((c) =>
        c.type === "Ready" || c.type === "ContainersReady" ? { ...c, status: "False", reason: "PodCompleted", lastTransitionTime: now } : c,
      ),
      containerStatuses: (pod.status?.containerStatuses ?? []).map(terminate),
    };
    return this.store.write("pods", { ...pod, status });
  }

  private runningStatus(pod: Pod, c: Container, restartCount: number, startedAt: string): ContainerStatus {
    return {
      name: c.name,
      image: parseImage(c.image).normalized,
      imageID: this.images.imageIdFor(c.image),
      containerID: `containerd://${sha256Hex(`${pod.metadata.uid}/${c.name}/${restartCount}`)}`,
      ready: true,
      started: true,
      restartCount,
      state: { running: { startedAt } },
      lastState: {},
    };
  }

  private completedInitStatus(pod: Pod, c: Container, at: string): ContainerStatus {
    return {
      ...this.runningStatus(pod, c, 0, at),
      started: false,
      state: {
        terminated: {
          exitCode: 0,
          reason: "Completed",
          startedAt: at,
          finishedAt: at,
          containerID: `containerd://${sha256Hex(`${pod.metadata.uid}/${c.name}/0`)}`,
        },
      },
    };
  }
}
