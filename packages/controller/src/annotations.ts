// Record metadata from annotations on the workload and its pods (pod annotations win, key by key).
//
//   tags.shiplog.dev/<key>: <value>          a tag (at most 5; key and value up to 100 characters)
//   shiplog.dev/runtime-risks: a, b          critical-resource, internet-exposed, lateral-movement, sensitive-data
//   shiplog.dev/repository: web              github_repository for every container of the pod
//   shiplog.dev/repository.<container>: api  github_repository for one container ("" means none for it)
//   shiplog.dev/logical-environment: prod    overrides the configured logical environment
//   shiplog.dev/physical-environment: eu-1   overrides the configured physical environment
//   shiplog.dev/ignore: "true"               the workload is not tracked
//
// An invalid annotation is skipped with a reason; the record is still produced without it.
import { RUNTIME_RISKS, type RuntimeRisk } from "@shiplog/client";

export const ANNOTATION_PREFIX = "shiplog.dev/";
export const TAG_ANNOTATION_PREFIX = "tags.shiplog.dev/";
export const RUNTIME_RISKS_ANNOTATION = "shiplog.dev/runtime-risks";
export const REPOSITORY_ANNOTATION = "shiplog.dev/repository";
export const LOGICAL_ENVIRONMENT_ANNOTATION = "shiplog.dev/logical-environment";
export const PHYSICAL_ENVIRONMENT_ANNOTATION = "shiplog.dev/physical-environment";
export const IGNORE_ANNOTATION = "shiplog.dev/ignore";

export const MAX_TAGS = 5;
export const MAX_TAG_LENGTH = 100;
const REPOSITORY = /^[A-Za-z0-9.\-_]{1,100}$/;

/** What the annotations say about one container's record. */
export interface RecordAnnotations {
  tags?: Record<string, string>;
  runtimeRisks?: RuntimeRisk[];
  repository?: string;
  logicalEnvironment?: string;
  physicalEnvironment?: string;
}

/** An annotation that was skipped, and why. */
export interface AnnotationWarning {
  annotation: string;
  reason: string;
}

/** Merges annotation maps, later ones winning key by key (workload first, then pod). */
export function mergeAnnotations(...sources: (Record<string, string> | undefined)[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const source of sources) if (source) Object.assign(merged, source);
  return merged;
}

/** Reads the record metadata for one container from merged annotations. */
export function readRecordAnnotations(
  annotations: Record<string, string>,
  container: string,
): { value: RecordAnnotations; warnings: AnnotationWarning[] } {
  const warnings: AnnotationWarning[] = [];
  const value: RecordAnnotations = {};

  const tagKeys = Object.keys(annotations)
    .filter((k) => k.startsWith(TAG_ANNOTATION_PREFIX))
    .sort();
  const tags: Record<string, string> = {};
  for (const annotation of tagKeys) {
    const key = annotation.slice(TAG_ANNOTATION_PREFIX.length);
    const tagValue = annotations[annotation]!;
    if (key === "" || key.length > MAX_TAG_LENGTH) {
      warnings.push({ annotation, reason: `tag key must be 1 to ${MAX_TAG_LENGTH} characters` });
    } else if (tagValue.length > MAX_TAG_LENGTH) {
      warnings.push({ annotation, reason: `tag value must be at most ${MAX_TAG_LENGTH} characters (has ${tagValue.length})` });
    } else if (Object.keys(tags).length >= MAX_TAGS) {
      warnings.push({ annotation, reason: `at most ${MAX_TAGS} tags; tags are taken in key order` });
    } else {
      tags[key] = tagValue;
    }
  }
  if (Object.keys(tags).length > 0) value.tags = tags;

  const risks = annotations[RUNTIME_RISKS_ANNOTATION];
  if (risks !== undefined) {
    const items = [...new Set(risks.split(",").map((r) => r.trim()).filter((r) => r !== ""))];
    const unknown = items.filter((r) => !(RUNTIME_RISKS as readonly string[]).includes(r));
    if (unknown.length > 0) {
      warnings.push({
        annotation: RUNTIME_RISKS_ANNOTATION,
        reason: `unknown runtime risk ${unknown.map((u) => `"${u}"`).join(", ")}; allowed: ${RUNTIME_RISKS.join(", ")}`,
      });
    } else if (items.length > 0) {
      value.runtimeRisks = (items as RuntimeRisk[]).sort();
    }
  }

  const perContainer = `${REPOSITORY_ANNOTATION}.${container}`;
  const repositoryAnnotation = annotations[perContainer] !== undefined ? perContainer : REPOSITORY_ANNOTATION;
  const repository = annotations[repositoryAnnotation];
  if (repository !== undefined && repository !== "") {
    if (REPOSITORY.test(repository)) value.repository = repository;
    else {
      warnings.push({
        annotation: repositoryAnnotation,
        reason: "repository must be 1 to 100 characters of letters, digits, '.', '-' or '_'",
      });
    }
  }

  const logical = annotations[LOGICAL_ENVIRONMENT_ANNOTATION];
  if (logical !== undefined) {
    if (logical.length >= 1 && logical.length <= 128) value.logicalEnvironment = logical;
    else warnings.push({ annotation: LOGICAL_ENVIRONMENT_ANNOTATION, reason: "logical environment must be 1 to 128 characters" });
  }
  const physical = annotations[PHYSICAL_ENVIRONMENT_ANNOTATION];
  if (physical !== undefined) {
    if (physical.length <= 128) value.physicalEnvironment = physical;
    else warnings.push({ annotation: PHYSICAL_ENVIRONMENT_ANNOTATION, reason: "physical environment must be at most 128 characters" });
  }

  const ignore = readIgnore(annotations);
  if (ignore.warning) warnings.push(ignore.warning);
  return { value, warnings };
}

/**
 * Whether merged annotations take the workload out of tracking (`shiplog.dev/ignore: "true"`): the one place the
 * flag is read. Anything but "true" or "false" is a warning, and the workload stays tracked.
 */
export function readIgnore(annotations: Record<string, string>): { ignore: boolean; warning?: AnnotationWarning } {
  const flag = annotations[IGNORE_ANNOTATION];
  if (flag === undefined || flag === "false") return { ignore: false };
  if (flag === "true") return { ignore: true };
  return { ignore: false, warning: { annotation: IGNORE_ANNOTATION, reason: 'must be "true" or "false"' } };
}
