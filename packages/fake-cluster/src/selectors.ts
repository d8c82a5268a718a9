import type { KubeObject } from "./kube-object.js";
import { badRequest } from "./status.js";

type LabelRequirement =
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: Set<string> }
  | { op: "exists" | "!"; key: string };

/** A parsed labelSelector: all requirements must hold. */
export interface LabelSelector {
  requirements: LabelRequirement[];
}

/** A parsed fieldSelector: all terms must hold. */
export interface FieldSelector {
  terms: { path: string[]; op: "=" | "!="; value: string }[];
}

/** Splits on commas that are not inside parentheses. */
function splitTerms(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out.map((t) => t.trim()).filter((t) => t.length > 0);
}

/** Parses a labelSelector query value (equality and set-based syntax). */
export function parseLabelSelector(text: string | undefined): LabelSelector | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const requirements: LabelRequirement[] = [];
  for (const term of splitTerms(text)) {
    let m = /^([^\s!=()]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (m) {
      const values = new Set(m[3]!.split(",").map((v) => v.trim()).filter((v) => v !== ""));
      requirements.push({ op: m[2] as "in" | "notin", key: m[1]!, values });
      continue;
    }
    m = /^([^\s!=()]+)\s*(==|=|!=)\s*([^\s!=()]*)$/.exec(term);
    if (m) {
      requirements.push({ op: m[2] === "!=" ? "!=" : "=", key: m[1]!, value: m[3]! });
      continue;
    }
    m = /^!\s*([^\s!=()]+)$/.exec(term);
    if (m) {
      requirements.push({ op: "!", key: m[1]! });
      continue;
    }
    m = /^([^\s!=()]+)$/.exec(term);
    if (m) {
      requirements.push({ op: "exists", key: m[1]! });
      continue;
    }
    throw badRequest(`unable to parse requirement: labelSelector term "${term}" is not valid`);
  }
  return { requirements };
}

/** True when `labels` satisfy the selector. */
export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  for (const r of selector.requirements) {
    const v = labels?.[r.key];
    switch (r.op) {
      case "=":
        if (v !== r.value) return false;
        break;
      case "!=":
        if (v === r.value) return false;
        break;
      case "in":
        if (v === undefined || !r.values.has(v)) return false;
        break;
      case "notin":
        if (v !== undefined && r.values.has(v)) return false;
        break;
      case "exists":
        if (v === undefined) return false;
        break;
      case "!":
        if (v !== undefined) return false;
        break;
    }
  }
  return true;
}

/** Parses a fieldSelector query value (`a.b=c,d!=e`). */
export function parseFieldSelector(text: string | undefined): FieldSelector | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const terms: FieldSelector["terms"] = [];
  for (const term of splitTerms(text)) {
    const m = /^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!m) throw badRequest(`invalid selector: fieldSelector term "${term}" must be field=value or field!=value`);
    terms.push({ path: m[1]!.split("."), op: m[2] === "!=" ? "!=" : "=", value: m[3]!.trim() });
  }
  return { terms };
}

function fieldValue(obj: unknown, path: string[]): string {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return "";
    cur = (cur as Record<string, unknown>)[p];
  }
  if (cur === undefined || cur === null) return "";
  return typeof cur === "string" ? cur : String(cur);
}

/** True when `obj` satisfies the field selector (absent fields compare as ""). */
export function matchesFields(selector: FieldSelector, obj: KubeObject): boolean {
  for (const t of selector.terms) {
    const v = fieldValue(obj, t.path);
    if (t.op === "=" ? v !== t.value : v === t.value) return false;
  }
  return true;
}

/** Namespace + selectors that decide whether an object is part of a list or watch. */
export interface ObjectFilter {
  namespace?: string | undefined;
  labels?: LabelSelector | undefined;
  fields?: FieldSelector | undefined;
}

/** True when the object passes the filter. */
export function matchesFilter(filter: ObjectFilter, obj: KubeObject): boolean {
  if (filter.namespace !== undefined && obj.metadata.namespace !== filter.namespace) return false;
  if (filter.labels && !matchesLabels(filter.labels, obj.metadata.labels)) return false;
  if (filter.fields && !matchesFields(filter.fields, obj)) return false;
  return true;
}

/** Converts a Kubernetes LabelSelector object (matchLabels/matchExpressions) into a parsed selector. */
export function selectorFromSpec(spec: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | undefined): LabelSelector {
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(spec?.matchLabels ?? {})) requirements.push({ op: "=", key, value });
  for (const e of spec?.matchExpressions ?? []) {
    if (e.operator === "In") requirements.push({ op: "in", key: e.key, values: new Set(e.values ?? []) });
    else if (e.operator === "NotIn") requirements.push({ op: "notin", key: e.key, values: new Set(e.values ?? []) });
    else if (e.operator === "Exists") requirements.push({ op: "exists", key: e.key });
    else if (e.operator === "DoesNotExist") requirements.push({ op: "!", key: e.key });
  }
  return { requirements };
}
