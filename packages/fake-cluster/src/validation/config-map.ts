// ValidateConfigMap: keys, a key in both data and binaryData, 1 MiB in total.
import type { KubeObject } from "../kube-object.js";
import type { FieldError } from "./field-errors.js";
import { invalidValue, tooLong } from "./field-errors.js";
import { configKeyProblems } from "./names.js";

/** core.MaxSecretSize, also the limit of a ConfigMap's data. */
export const MAX_CONFIG_MAP_SIZE = 1024 * 1024;

/** A ConfigMap's data and binaryData (values already decoded as strings and base64 by the decoder). */
export function validateConfigMap(obj: KubeObject): FieldError[] {
  const out: FieldError[] = [];
  const data = (obj.data ?? {}) as Record<string, string>;
  const binary = (obj.binaryData ?? {}) as Record<string, string>;
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    for (const m of configKeyProblems(key)) out.push(invalidValue(`data[${key}]`, key, m));
    size += Buffer.byteLength(value);
  }
  for (const [key, value] of Object.entries(binary)) {
    for (const m of configKeyProblems(key)) out.push(invalidValue(`binaryData[${key}]`, key, m));
    if (Object.hasOwn(data, key)) out.push(invalidValue(`data[${key}]`, key, "duplicate of key present in binaryData"));
    size += Buffer.from(value, "base64").length;
  }
  if (size > MAX_CONFIG_MAP_SIZE) out.push(tooLong("[]", MAX_CONFIG_MAP_SIZE));
  return out;
}

/** An immutable ConfigMap keeps its data; `immutable` cannot be unset. */
export function validateConfigMapUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  if (old.immutable !== true) return [];
  const out: FieldError[] = [];
  if (obj.immutable !== true)
    out.push({ reason: "FieldValueForbidden", field: "immutable", message: "Forbidden: field is immutable when `immutable` is set" });
  if (JSON.stringify(obj.data ?? {}) !== JSON.stringify(old.data ?? {})) {
    out.push({ reason: "FieldValueForbidden", field: "data", message: "Forbidden: field is immutable when `immutable` is set" });
  }
  if (JSON.stringify(obj.binaryData ?? {}) !== JSON.stringify(old.binaryData ?? {})) {
    out.push({ reason: "FieldValueForbidden", field: "binaryData", message: "Forbidden: field is immutable when `immutable` is set" });
  }
  return out;
}
