// The kinds of values the controller's settings take (durations, bounded integers, shares, name lists, booleans,
// the deployment-name template), as zod parsers that name the rule a bad value breaks. config/config.ts assembles them.
import { z } from "zod";
import { SETTING_MAX_LENGTHS, SETTING_PATTERNS } from "./rules.js";
import { DEPLOYMENT_NAME_PLACEHOLDERS } from "../mapping/pod-records.js";

/** One configuration problem. */
export interface ConfigIssue {
  field: string;
  rule: string;
  message: string;
}

/** The longest delay a Node timer holds (2^31-1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Parses a duration: `500ms`, `5s`, `2m`, `1h`, or `0`. A number without a unit is no duration (`5` could mean
 * seconds or milliseconds): undefined, as for any other text that is not one.
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]);
  if (match[2] === undefined) return value === 0 ? 0 : undefined;
  return Math.round(value * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2]]!);
}

/** Whether a text is a number without a unit (other than 0): the mistake `duration` names on its own. */
const unitless = (text: string) => /^\d+(?:\.\d+)?$/.test(text.trim()) && Number(text) !== 0;

/** A duration of at least `min` ms and at most what a timer holds (`max`, default MAX_TIMER_MS). */
export const duration = (min: number, max = MAX_TIMER_MS) =>
  z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (unitless(text)) {
      ctx.addIssue({
        code: "custom",
        message: `"${text}" has no unit: write ${text.trim()}s or ${text.trim()}ms (units: ms, s, m, h)`,
        params: { rule: "duration with a unit" },
      });
      return z.NEVER;
    }
    if (ms === undefined) {
      ctx.addIssue({ code: "custom", message: `"${text}" is not a duration (e.g. 500ms, 5s, 2m)`, params: { rule: "duration" } });
      return z.NEVER;
    }
    if (ms < min) {
      ctx.addIssue({ code: "custom", message: `must be at least ${min}ms`, params: { rule: `minimum ${min}ms` } });
      return z.NEVER;
    }
    if (ms > max) {
      const days = (max / 86_400_000).toFixed(1);
      ctx.addIssue({
        code: "custom",
        message: `must be at most ${max}ms (about ${days} days), the longest a timer can wait (got "${text}")`,
        params: { rule: `maximum ${max}ms` },
      });
      return z.NEVER;
    }
    return ms;
  });

/** An integer from `min` to `max`. */
export const integer = (min: number, max: number) =>
  z.string().transform((text, ctx) => {
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
      ctx.addIssue({
        code: "custom",
        message: `must be an integer from ${min} to ${max} (got "${text}")`,
        params: { rule: `integer ${min}..${max}` },
      });
      return z.NEVER;
    }
    return value;
  });

/** A share: a decimal above 0 and at most 1. */
export const share = z.string().transform((text, ctx) => {
  const value = Number(text);
  if (!/^\d*\.?\d+$/.test(text.trim()) || !(value > 0 && value <= 1)) {
    ctx.addIssue({
      code: "custom",
      message: `must be a number above 0 and at most 1, e.g. 0.5 (got "${text}")`,
      params: { rule: "0 < share <= 1" },
    });
    return z.NEVER;
  }
  return value;
});

/** A comma list; an empty name (`a,,b`, `,`, a trailing comma) is refused, not dropped: `,,` is no list of namespaces. */
const commaList = z.string().transform((text, ctx) => {
  const names = text.split(",").map((s) => s.trim());
  if (names.some((name) => name === "")) {
    ctx.addIssue({
      code: "custom",
      message: `holds an empty name (${JSON.stringify(text.slice(0, 80))}): give names separated by single commas, or leave it unset for all`,
      params: { rule: "no empty names" },
    });
    return z.NEVER;
  }
  return names;
});
/** A comma list of namespace names (DNS labels). */
export const namespaceList = commaList.pipe(
  z.array(
    z
      .string()
      .regex(new RegExp(SETTING_PATTERNS.namespace), { message: "each namespace must be a DNS label (lowercase letters, digits, '-')" })
      .max(SETTING_MAX_LENGTHS.namespace),
  ),
);

/** A deployment-name template: known placeholders, {workload} and {container} required. */
export const template = z.string().superRefine((text, ctx) => {
  const placeholders = [...text.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!);
  const unknown = placeholders.filter((p) => !(DEPLOYMENT_NAME_PLACEHOLDERS as readonly string[]).includes(p));
  if (unknown.length > 0) {
    ctx.addIssue({
      code: "custom",
      message:
        `unknown placeholder ${unknown.map((u) => `{${u}}`).join(", ")}; ` +
        `allowed: ${DEPLOYMENT_NAME_PLACEHOLDERS.map((p) => `{${p}}`).join(" ")}`,
      params: { rule: "known placeholders" },
    });
  }
  for (const required of ["workload", "container"]) {
    if (!placeholders.includes(required)) {
      ctx.addIssue({
        code: "custom",
        message: `must contain {${required}} so that records of different ${required}s stay apart`,
        params: { rule: `contains {${required}}` },
      });
    }
  }
});

/** A Kubernetes object name (DNS subdomain). */
export const dnsSubdomain = z
  .string()
  .max(253, { message: "must be at most 253 characters" })
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, {
    message: "must be a Kubernetes object name (lowercase letters, digits, '-', '.')",
  });

/** true/false, 1/0, yes/no. */
export const booleanText = z.string().transform((text, ctx) => {
  const t = text.trim().toLowerCase();
  if (["true", "1", "yes"].includes(t)) return true;
  if (["false", "0", "no"].includes(t)) return false;
  ctx.addIssue({ code: "custom", message: `must be true or false (got "${text}")`, params: { rule: "boolean" } });
  return z.NEVER;
});
