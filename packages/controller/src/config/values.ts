// The kinds of values the controller's settings take (durations, bounded integers, shares, name lists, booleans,
// patterns, the deployment-name template), each a SettingType: the zod parser that reads the text and names the rule
// a bad text breaks, how a value is written back as text, the rule in words, and the chart's JSON Schema of it.
// config/settings.ts gives each setting its type; config/config.ts assembles the parsers.
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

/** A JSON Schema (draft-07) fragment: the chart's values.schema.json describes a chart value with it. */
export type JsonSchema = Record<string, unknown>;

/** How a chart value holds a setting's text: a string, an integer, a number, a boolean, a list or a map. */
export type ChartValueKind = "string" | "integer" | "number" | "boolean" | "list" | "map";

/** The kind of value a setting takes. */
export interface SettingType<T> {
  /** Reads the text of a flag or variable; a bad text is an issue naming its rule. */
  parser: z.ZodType<T, string>;
  /** A value as the operator writes it (a default in --help, the README and values.yaml). */
  text(value: T): string;
  /** The rule in words, for the settings table. */
  rule: string;
  /** The chart's schema of a value (an optional one also takes ""). */
  schema: JsonSchema;
  /** How a chart value holds the text. */
  kind: ChartValueKind;
  /** A value as values.yaml holds it. */
  chartValue(value: T): unknown;
  /** Durations: the least and most milliseconds (the chart's template checks them: a schema cannot read a duration). */
  durationMs?: { min: number; max: number };
  /** Parts a value must contain, and why (the chart's template checks them: a schema pattern would print itself). */
  mustContain?: { parts: string[]; why: string };
}

const plain = <T>(value: T): unknown => value;

/** A type of its own (a parser with its rule, schema and chart kind); text and chart value default to String(value). */
export function custom<T>(
  parser: z.ZodType<T, string>,
  parts: Pick<SettingType<T>, "rule" | "schema"> &
    Partial<Pick<SettingType<T>, "text" | "kind" | "chartValue" | "durationMs" | "mustContain">>,
): SettingType<T> {
  const text = parts.text ?? String;
  return { parser, kind: "string", chartValue: (value: T) => text(value), ...parts, text };
}

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

/** Milliseconds as a duration's text, in the largest whole unit: 0, 100ms, 1s, 10m, 1h. */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0";
  for (const [unit, size] of [
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1000],
  ] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** Whether a text is a number without a unit (other than 0): the mistake `duration` names on its own. */
const unitless = (text: string) => /^\d+(?:\.\d+)?$/.test(text.trim()) && Number(text) !== 0;

/** A duration of at least `min` ms and at most what a timer holds (`max`, default MAX_TIMER_MS), read as ms. */
export function duration(min: number, max = MAX_TIMER_MS): SettingType<number> {
  const parser = z.string().transform((text, ctx) => {
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
  return custom(parser, {
    text: formatDuration,
    rule: `duration (ms, s, m, h) from ${formatDuration(min)}${max === MAX_TIMER_MS ? "" : ` to ${formatDuration(max)}`}`,
    schema: { type: "string", pattern: SETTING_PATTERNS.duration },
    durationMs: { min, max },
  });
}

/** An integer from `min` to `max`. */
export function integer(min: number, max: number): SettingType<number> {
  const parser = z.string().transform((text, ctx) => {
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
  return custom(parser, {
    rule: `integer ${min}..${max}`,
    schema: { type: "integer", minimum: min, maximum: max },
    kind: "integer",
    chartValue: plain,
  });
}

/** A share: a decimal above 0 and at most 1. */
export const share: SettingType<number> = custom(
  z.string().transform((text, ctx) => {
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
  }),
  { rule: "0 < share <= 1", schema: { type: "number", exclusiveMinimum: 0, maximum: 1 }, kind: "number", chartValue: plain },
);

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
export const namespaceList: SettingType<string[]> = custom(
  commaList.pipe(
    z.array(
      z
        .string()
        .regex(new RegExp(SETTING_PATTERNS.namespace), { message: "each namespace must be a DNS label (lowercase letters, digits, '-')" })
        .max(SETTING_MAX_LENGTHS.namespace),
    ),
  ),
  {
    text: (names) => names.join(","),
    rule: `comma list of namespace names (DNS labels, up to ${SETTING_MAX_LENGTHS.namespace})`,
    schema: { type: "array", items: { type: "string", pattern: SETTING_PATTERNS.namespace, maxLength: SETTING_MAX_LENGTHS.namespace } },
    kind: "list",
    chartValue: plain,
  },
);

/** The placeholders a deployment-name template must hold, so that records of different workloads and containers stay apart. */
const REQUIRED_PLACEHOLDERS = ["workload", "container"];

/** A deployment-name template: known placeholders, {workload} and {container} required. */
export function template(read: (text: string) => string): SettingType<string> {
  const check = z.string().superRefine((text, ctx) => {
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
    for (const required of REQUIRED_PLACEHOLDERS) {
      if (!placeholders.includes(required)) {
        ctx.addIssue({
          code: "custom",
          message: `must contain {${required}} so that records of different ${required}s stay apart`,
          params: { rule: `contains {${required}}` },
        });
      }
    }
  });
  const placeholder = `\\{(${DEPLOYMENT_NAME_PLACEHOLDERS.join("|")})\\}`;
  return custom(z.string().transform(read).pipe(check), {
    rule: `placeholders ${DEPLOYMENT_NAME_PLACEHOLDERS.map((p) => `{${p}}`).join(" ")}; contains {workload} and {container}`,
    schema: { type: "string", pattern: `^[^{}]*(${placeholder}[^{}]*)*$` },
    mustContain: {
      parts: REQUIRED_PLACEHOLDERS.map((p) => `{${p}}`),
      why: `so that records of different ${REQUIRED_PLACEHOLDERS.map((p) => `${p}s`).join(" and ")} stay apart`,
    },
  });
}

const DNS_SUBDOMAIN = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/** A Kubernetes object name (DNS subdomain), at most `max` characters (253; less when names are made from it). */
export function objectName(max = 253, tooLong?: { message: string; rule: string }): SettingType<string> {
  let parser: z.ZodType<string, string> = z
    .string()
    .max(253, { message: "must be at most 253 characters" })
    .regex(new RegExp(DNS_SUBDOMAIN), { message: "must be a Kubernetes object name (lowercase letters, digits, '-', '.')" });
  if (tooLong) parser = parser.refine((name) => name.length <= max, { message: tooLong.message, params: { rule: tooLong.rule } });
  return custom(parser, {
    rule: `Kubernetes object name (DNS subdomain), up to ${max}`,
    schema: { type: "string", pattern: DNS_SUBDOMAIN, maxLength: max },
  });
}

/** true/false, 1/0, yes/no. */
export const boolean: SettingType<boolean> = custom(
  z.string().transform((text, ctx) => {
    const t = text.trim().toLowerCase();
    if (["true", "1", "yes"].includes(t)) return true;
    if (["false", "0", "no"].includes(t)) return false;
    ctx.addIssue({ code: "custom", message: `must be true or false (got "${text}")`, params: { rule: "boolean" } });
    return z.NEVER;
  }),
  { rule: "true or false", schema: { type: "boolean" }, kind: "boolean", chartValue: plain },
);

/** One of `values` (their order is the documented one). */
export function oneOf<const T extends string>(values: readonly [T, ...T[]], message?: string): SettingType<T> {
  return custom(z.enum(values, message === undefined ? undefined : { message }), {
    rule: `one of ${values.join(", ")}`,
    schema: { type: "string", enum: [...values] },
  });
}

/** Text matching an anchored pattern (in the syntax JavaScript and Go's RE2 share), with the message a mismatch gets. */
export function matching(pattern: string, message: string, rule: string, required = false): SettingType<string> {
  return custom((required ? z.string({ message: "is required" }) : z.string()).regex(new RegExp(pattern), { message }), {
    rule,
    schema: { type: "string", pattern },
  });
}

/** Text of `min` to `max` characters. */
export function bounded(min: number, max: number): SettingType<string> {
  let parser = min > 0 ? z.string({ message: "is required" }).min(min, { message: "is required" }) : z.string();
  parser = parser.max(max, { message: `must be at most ${max} characters` });
  return custom(parser, {
    rule: min > 0 ? `${min} to ${max} characters` : `at most ${max} characters`,
    schema: { type: "string", ...(min > 0 && { minLength: min }), maxLength: max },
  });
}
