// apps/v1 and batch/v1 workload specs: replicas, selectors that select the template, immutable selectors,
// Deployment strategies, pod templates with the restart policy their owner allows.
import type { CronJob, CronJobSpec, DeploymentSpec, Job, JobSpec, LabelSelectorSpec, PodTemplate, Workload } from "../object-kinds.js";
import type { ResourceName } from "../resource-kinds.js";
import { matchesLabels, selectorFromSpec } from "../selectors.js";
import type { FieldError } from "./field-errors.js";
import { forbidden, immutable, invalidValue, notSupported, required } from "./field-errors.js";
import { qualifiedNameProblems } from "./names.js";
import { validateAnnotations, validateLabels } from "./object-meta.js";
import { validatePodSpec } from "./pod-spec.js";
import { validateCronSchedule } from "./cron-schedule.js";

const nonNegative = (path: string, value: number | undefined): FieldError[] =>
  value !== undefined && value < 0 ? [invalidValue(path, value, "must be greater than or equal to 0")] : [];

/** metav1 ValidateLabelSelector */
export function validateLabelSelector(selector: LabelSelectorSpec | undefined, path: string): FieldError[] {
  const out: FieldError[] = validateLabels(selector?.matchLabels, `${path}.matchLabels`);
  (selector?.matchExpressions ?? []).forEach((e, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values: unknown[] = e.values ?? [];
    if (e.operator === "In" || e.operator === "NotIn") {
      if (values.length === 0) out.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (e.operator === "Exists" || e.operator === "DoesNotExist") {
      if (values.length > 0) out.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else out.push(invalidValue(`${at}.operator`, e.operator ?? "", "not a valid selector operator"));
    for (const m of qualifiedNameProblems(e.key ?? "")) out.push(invalidValue(`${at}.key`, e.key ?? "", m));
  });
  return out;
}

function isEmptySelector(selector: LabelSelectorSpec | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}

/** A pod template under `path` and its owner's selector. */
function validateTemplate(
  template: PodTemplate | undefined,
  selector: LabelSelectorSpec | undefined,
  path: string,
  restartPolicies: string[],
): FieldError[] {
  if (template === undefined || template === null) return [required(path)];
  const out: FieldError[] = [];
  const labels = template.metadata?.labels;
  out.push(...validateLabels(labels, `${path}.metadata.labels`));
  out.push(...validateAnnotations(template.metadata?.annotations, `${path}.metadata.annotations`));
  if (selector && !isEmptySelector(selector) && !matchesLabels(selectorFromSpec(selector), labels)) {
    out.push(invalidValue(`${path}.metadata.labels`, labels ?? {}, "`selector` does not match template `labels`"));
  }
  out.push(...validatePodSpec(template.spec, `${path}.spec`, restartPolicies));
  return out;
}

/** The selector an apps/v1 workload must have: present, not empty, valid. */
function validateAppsSelector(selector: LabelSelectorSpec | undefined, kind: string): FieldError[] {
  if (selector === undefined || selector === null) return [required("spec.selector")];
  if (isEmptySelector(selector)) return [invalidValue("spec.selector", selector, `empty selector is invalid for ${kind}`)];
  return validateLabelSelector(selector, "spec.selector");
}

const PERCENT = /^[0-9]+%$/;

/** A Deployment's strategy: known type, intstr counts or percentages, not both zero. */
function validateStrategy(strategy: DeploymentSpec["strategy"]): FieldError[] {
  if (strategy === undefined || strategy === null) return [];
  const out: FieldError[] = [];
  const path = "spec.strategy";
  if (strategy.type !== undefined && strategy.type !== "RollingUpdate" && strategy.type !== "Recreate") {
    out.push(notSupported(`${path}.type`, strategy.type, ["Recreate", "RollingUpdate"]));
  }
  const rolling = strategy.rollingUpdate;
  if (rolling === undefined || rolling === null) return out;
  if (strategy.type === "Recreate") {
    return [...out, forbidden(`${path}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")];
  }
  const isZero = (field: "maxSurge" | "maxUnavailable") => {
    const value = rolling[field];
    if (value === undefined) return false;
    const where = `${path}.rollingUpdate.${field}`;
    if (typeof value === "number") {
      out.push(...nonNegative(where, value));
      return value === 0;
    }
    if (!PERCENT.test(value)) {
      const detail =
        "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";
      out.push(invalidValue(where, value, detail));
      return false;
    }
    if (field === "maxUnavailable" && Number.parseInt(value, 10) > 100)
      out.push(invalidValue(where, value, "must not be greater than 100%"));
    return Number.parseInt(value, 10) === 0;
  };
  const surgeZero = isZero("maxSurge");
  if (isZero("maxUnavailable") && surgeZero)
    out.push(invalidValue(`${path}.rollingUpdate.maxUnavailable`, 0, "may not be 0 when `maxSurge` is 0"));
  return out;
}

const KIND_NAMES: Partial<Record<ResourceName, string>> = {
  deployments: "deployment",
  replicasets: "replicaset",
  statefulsets: "statefulset",
  daemonsets: "daemonset",
};

/** apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet specs. */
export function validateAppsWorkload(resource: ResourceName, obj: Workload): FieldError[] {
  const spec: DeploymentSpec = obj.spec ?? {};
  const out: FieldError[] = [];
  out.push(...nonNegative("spec.replicas", spec.replicas));
  out.push(...nonNegative("spec.minReadySeconds", spec.minReadySeconds));
  out.push(...nonNegative("spec.revisionHistoryLimit", spec.revisionHistoryLimit));
  out.push(...validateAppsSelector(spec.selector, KIND_NAMES[resource] ?? resource));
  out.push(...validateTemplate(spec.template, spec.selector, "spec.template", ["Always"]));
  if (resource === "deployments") {
    out.push(...validateStrategy(spec.strategy));
    const deadline = spec.progressDeadlineSeconds;
    if (deadline !== undefined) {
      out.push(...nonNegative("spec.progressDeadlineSeconds", deadline));
      if (deadline <= (spec.minReadySeconds ?? 0))
        out.push(invalidValue("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"));
    }
  }
  return out;
}

/** apps/v1 selectors are immutable after creation. */
export function validateAppsWorkloadUpdate(obj: Workload, old: Workload): FieldError[] {
  if (JSON.stringify(obj.spec?.selector ?? null) === JSON.stringify(old.spec?.selector ?? null)) return [];
  return [immutable("spec.selector", obj.spec?.selector ?? null)];
}

function validateJobSpec(spec: JobSpec | undefined, path: string): FieldError[] {
  if (spec === undefined || spec === null) return [required(`${path}.template`)];
  const out: FieldError[] = [];
  for (const field of ["parallelism", "completions", "backoffLimit", "activeDeadlineSeconds", "ttlSecondsAfterFinished"] as const) {
    out.push(...nonNegative(`${path}.${field}`, spec[field]));
  }
  if (spec.completionMode !== undefined && !["NonIndexed", "Indexed"].includes(spec.completionMode)) {
    out.push(notSupported(`${path}.completionMode`, spec.completionMode, ["NonIndexed", "Indexed"]));
  }
  if (spec.selector) out.push(...validateLabelSelector(spec.selector, `${path}.selector`));
  out.push(...validateTemplate(spec.template, spec.selector, `${path}.template`, ["OnFailure", "Never"]));
  return out;
}

/** batch/v1 Job */
export function validateJob(obj: Job): FieldError[] {
  return validateJobSpec(obj.spec, "spec");
}

/** A Job's selector and pod template cannot change once created. */
export function validateJobUpdate(obj: Job, old: Job): FieldError[] {
  const out: FieldError[] = [];
  if (JSON.stringify(obj.spec?.selector ?? null) !== JSON.stringify(old.spec?.selector ?? null))
    out.push(immutable("spec.selector", obj.spec?.selector ?? null));
  if (JSON.stringify(obj.spec?.template ?? null) !== JSON.stringify(old.spec?.template ?? null))
    out.push(immutable("spec.template", obj.spec?.template ?? null));
  if (obj.spec?.completions !== old.spec?.completions) out.push(immutable("spec.completions", obj.spec?.completions ?? null));
  return out;
}

const CONCURRENCY = ["Allow", "Forbid", "Replace"];

/** batch/v1 CronJob: schedule syntax, concurrency policy, history limits, the Job template. */
export function validateCronJob(obj: CronJob): FieldError[] {
  const spec: CronJobSpec = obj.spec ?? {};
  const out: FieldError[] = [];
  if (!spec.schedule) out.push(required("spec.schedule"));
  else {
    const problem = validateCronSchedule(spec.schedule);
    if (problem) out.push(invalidValue("spec.schedule", spec.schedule, problem));
  }
  if (spec.concurrencyPolicy !== undefined && !CONCURRENCY.includes(spec.concurrencyPolicy)) {
    out.push(notSupported("spec.concurrencyPolicy", spec.concurrencyPolicy, CONCURRENCY));
  }
  out.push(...nonNegative("spec.startingDeadlineSeconds", spec.startingDeadlineSeconds));
  out.push(...nonNegative("spec.successfulJobsHistoryLimit", spec.successfulJobsHistoryLimit));
  out.push(...nonNegative("spec.failedJobsHistoryLimit", spec.failedJobsHistoryLimit));
  out.push(...validateLabels(spec.jobTemplate?.metadata?.labels, "spec.jobTemplate.metadata.labels"));
  out.push(...validateJobSpec(spec.jobTemplate?.spec, "spec.jobTemplate.spec"));
  return out;
}
