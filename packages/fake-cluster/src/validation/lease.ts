// ValidateLease (coordination.k8s.io/v1) and the MicroTime wire format its decoder insists on.
import type { Lease } from "../object-kinds.js";
import type { FieldError } from "./field-errors.js";
import { invalidValue, notSupported } from "./field-errors.js";
import { DecodeError } from "./schema.js";

// metav1.MicroTime: RFC 3339 with exactly six fractional digits; anything else fails to decode (400).
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/** Throws DecodeError when acquireTime/renewTime are not MicroTime text. */
export function decodeLeaseTimes(obj: Lease): void {
  for (const field of ["acquireTime", "renewTime"] as const) {
    const value = obj.spec?.[field];
    if (value === undefined || value === null) continue;
    if (!MICRO_TIME.test(value)) {
      throw new DecodeError(
        `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse as RFC 3339 time with microseconds`,
      );
    }
  }
}

/** Durations positive, transitions non-negative, a known strategy. */
export function validateLease(obj: Lease): FieldError[] {
  const out: FieldError[] = [];
  const spec = obj.spec ?? {};
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0) {
    out.push(invalidValue("spec.leaseDurationSeconds", spec.leaseDurationSeconds, "must be greater than 0"));
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0) {
    out.push(invalidValue("spec.leaseTransitions", spec.leaseTransitions, "must be greater than or equal to 0"));
  }
  if (spec.strategy !== undefined && spec.strategy !== "OldestEmulationVersion") {
    out.push(notSupported("spec.strategy", spec.strategy, ["OldestEmulationVersion"]));
  }
  return out;
}
