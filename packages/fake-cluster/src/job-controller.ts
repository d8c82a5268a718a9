import type { GarbageCollector } from "./garbage-collector.js";
import type { KubeObject } from "./kube-object.js";
import type { Job } from "./object-kinds.js";
import type { NameGenerator } from "./name-generator.js";
import type { ObjectStore } from "./object-store.js";
import { controlledBy, controllerRef } from "./owner-references.js";
import { podFromTemplate, statusChanged } from "./pod-template.js";

const isFinished = (job: Job) =>
  (job.status?.conditions ?? []).some((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");

/**
 * Job controller (pods `<job>-<5 random>` up to parallelism until completions succeed, Complete/Failed
 * conditions) and CronJob controller (Jobs `<cronjob>-<scheduled minute>` created by `trigger`, active list,
 * history limits). Schedules are not evaluated on a clock: scripts trigger runs, so tests stay deterministic.
 */
export class JobController {
  private lastScheduledMinute = new Map<string, number>();

  constructor(
    private readonly store: ObjectStore,
    private readonly gc: GarbageCollector,
    private readonly names: NameGenerator,
  ) {}

  /** Reconciles one Job. */
  syncJob(namespace: string, name: string): void {
    const job = this.store.get("jobs", namespace, name);
    if (!job || job.metadata.deletionTimestamp || isFinished(job) || job.spec?.suspend) return;
    const pods = controlledBy(this.store, job, "pods");
    const active = pods.filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed");
    const succeeded = pods.filter((p) => p.status?.phase === "Succeeded").length;
    const failed = pods.filter((p) => p.status?.phase === "Failed").length;
    const completions: number = job.spec?.completions ?? 1;
    const parallelism: number = job.spec?.parallelism ?? 1;
    const backoffLimit: number = job.spec?.backoffLimit ?? 6;
    const now = this.store.clock.timestamp();
    const status: Record<string, unknown> = {
      ...job.status,
      startTime: job.status?.startTime ?? now,
      active: active.length,
      succeeded,
      failed,
      ready: active.filter((p) => p.status?.phase === "Running").length,
    };
    if (succeeded >= completions) {
      status.active = 0;
      status.completionTime = now;
      status.conditions = [
        { type: "SuccessCriteriaMet", status: "True", lastProbeTime: now, lastTransitionTime: now },
        { type: "Complete", status: "True", lastProbeTime: now, lastTransitionTime: now },
      ];
    } else if (failed > backoffLimit) {
      status.active = 0;
      status.conditions = [
        {
          type: "Failed",
          status: "True",
          reason: "BackoffLimitExceeded",
          message: "Job has reached the specified backoff limit",
          lastProbeTime: now,
          lastTransitionTime: now,
        },
      ];
      for (const p of active) this.gc.delete("pods", namespace, p.metadata.name!, { propagationPolicy: "Background" });
    } else {
      const want = Math.min(parallelism, completions - succeeded) - active.length;
      for (let i = 0; i < want; i++) {
        let podName = `${name}-${this.names.suffix()}`;
        while (this.store.get("pods", namespace, podName)) podName = `${name}-${this.names.suffix()}`;
        this.store.create("pods", podFromTemplate(job.spec?.template, { namespace, name: podName, owner: controllerRef(job) }));
      }
      status.active = active.length + Math.max(0, want);
    }
    if (statusChanged(job.status, status)) this.store.write("jobs", { ...job, status });
  }

  /** Creates the next Job of a CronJob now. */
  trigger(namespace: string, name: string): Job {
    const cj = this.store.getOrThrow("cronjobs", namespace, name);
    const key = `${namespace}/${name}`;
    const minute = Math.max(Math.floor(this.store.clock.now() / 60000), (this.lastScheduledMinute.get(key) ?? 0) + 1);
    this.lastScheduledMinute.set(key, minute);
    const scheduled = new Date(minute * 60000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const template = cj.spec?.jobTemplate ?? {};
    const job = this.store.create("jobs", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: {
        name: `${name}-${minute}`,
        namespace,
        labels: { ...template.metadata?.labels },
        annotations: { ...template.metadata?.annotations, "batch.kubernetes.io/cronjob-scheduled-timestamp": scheduled },
        ownerReferences: [controllerRef(cj)],
      },
      spec: template.spec,
    });
    const current = this.store.get("cronjobs", namespace, name)!;
    this.store.write("cronjobs", { ...current, status: { ...current.status, lastScheduleTime: scheduled } });
    return job;
  }

  /** Reconciles one CronJob: active list, last success, history limits. */
  syncCronJob(namespace: string, name: string): void {
    const cj = this.store.get("cronjobs", namespace, name);
    if (!cj || cj.metadata.deletionTimestamp) return;
    const jobs = controlledBy(this.store, cj, "jobs").filter((j) => !j.metadata.deletionTimestamp);
    const succeeded = jobs.filter((j) => (j.status?.conditions ?? []).some((c) => c.type === "Complete" && c.status === "True"));
    const failed = jobs.filter((j) => (j.status?.conditions ?? []).some((c) => c.type === "Failed" && c.status === "True"));
    const byAge = (a: KubeObject, b: KubeObject) => a.metadata.name!.localeCompare(b.metadata.name!, undefined, { numeric: true });
    const excess = [
      ...succeeded.sort(byAge).slice(0, Math.max(0, succeeded.length - (cj.spec?.successfulJobsHistoryLimit ?? 3))),
      ...failed.sort(byAge).slice(0, Math.max(0, failed.length - (cj.spec?.failedJobsHistoryLimit ?? 1))),
    ];
    for (const j of excess) this.gc.delete("jobs", namespace, j.metadata.name!, { propagationPolicy: "Background" });
    const active = jobs
      .filter((j) => !isFinished(j))
      .sort(byAge)
      .map((j) => ({ kind: "Job", namespace, name: j.metadata.name, uid: j.metadata.uid, apiVersion: "batch/v1" }));
    const lastSuccess = succeeded
      .map((j) => j.status?.completionTime as string)
      .sort()
      .pop();
    const status: Record<string, unknown> = { ...cj.status };
    if (active.length > 0) status.active = active;
    else delete status.active;
    if (lastSuccess) status.lastSuccessfulTime = lastSuccess;
    if (statusChanged(cj.status, status)) this.store.write("cronjobs", { ...cj, status });
  }
}
