// ValidateObjectMeta: names, labels, annotations, as the API server checks them on every write.
import type { ObjectMeta } from "../kube-object.js";
import type { FieldError } from "./field-errors.js";
import { invalidValue, required, tooLong } from "./field-errors.js";
import { dns1123LabelProblems, dns1123SubdomainProblems, labelValueProblems, qualifiedNameProblems } from "./names.js";

/** Total size of all annotation keys and values (apimachinery's TotalAnnotationSizeLimitB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** How a kind's object names are checked. */
export type NameRule = "subdomain" | "label";

/** metadata.labels (or any labels map at `path`): qualified-name keys, label values. */
export function validateLabels(labels: Record<string, string> | undefined, path: string): FieldError[] {
  const out: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const m of qualifiedNameProblems(key)) out.push(invalidValue(path, key, m));
    for (const m of labelValueProblems(value)) out.push(invalidValue(path, value, m));
  }
  return out;
}

/** metadata.annotations: qualified-name keys (case-insensitive), 256 KiB in total. */
export function validateAnnotations(annotations: Record<string, string> | undefined, path: string): FieldError[] {
  const out: FieldError[] = [];
  let size = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) {
    for (const m of qualifiedNameProblems(key.toLowerCase())) out.push(invalidValue(path, key, m));
    size += Buffer.byteLength(key) + Buffer.byteLength(value);
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) out.push(tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
  return out;
}

/** The object's own metadata (`metadata.*`). */
export function validateObjectMeta(meta: ObjectMeta, nameRule: NameRule): FieldError[] {
  const out: FieldError[] = [];
  if (!meta.name) out.push(required("metadata.name", "name or generateName is required"));
  else {
    const problems = nameRule === "label" ? dns1123LabelProblems(meta.name) : dns1123SubdomainProblems(meta.name);
    for (const m of problems) out.push(invalidValue("metadata.name", meta.name, m));
  }
  out.push(...validateLabels(meta.labels, "metadata.labels"));
  out.push(...validateAnnotations(meta.annotations, "metadata.annotations"));
  (meta.ownerReferences ?? []).forEach((ref, i) => {
    const path = `metadata.ownerReferences[${i}]`;
    if (!ref.apiVersion) out.push(invalidValue(`${path}.apiVersion`, ref.apiVersion ?? "", "version must not be empty"));
    if (!ref.kind) out.push(invalidValue(`${path}.kind`, ref.kind ?? "", "kind must not be empty"));
    if (!ref.name) out.push(invalidValue(`${path}.name`, ref.name ?? "", "name must not be empty"));
    if (!ref.uid) out.push(invalidValue(`${path}.uid`, ref.uid ?? "", "uid must not be empty"));
  });
  return out;
}
