import type { KubeObject } from "./kube-object.js";
import { badRequest } from "./status.js";

import type { ResourceKind } from "./resource-kinds.js";
import { labelValueProblems, qualifiedNameProblems } from "./validation/names.js";

// labelSelector grammar as apimachinery's labels.Parse has it:
//   selector    := requirement ( "," requirement )*
//   requirement := key | "!" key | key ("=" | "==" | "!=") value | key ("in" | "notin") "(" values ")"
//                | key (">" | "<") integer
// keys are qualified names, values label values; `in ()` is `in ("")`; a trailing comma is refused.

type LabelRequirement =
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: Set<string> }
  | { op: "exists" | "!"; key: string }
  | { op: ">" | "<"; key: string; value: number };

/** A parsed labelSelector: all requirements must hold. */
export interface LabelSelector {
  requirements: LabelRequirement[];
}

/** A parsed fieldSelector: all terms must hold. */
export interface FieldSelector {
  terms: { path: string[]; op: "=" | "!="; value: string }[];
}

const SPECIAL = "=!(),<>";

/** Lexes a selector into identifiers and operators ("" marks the end). */
function lex(text: string): { type: "id" | "op" | "end"; text: string }[] {
  const out: { type: "id" | "op" | "end"; text: string }[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) i++;
    else if (SPECIAL.includes(ch)) {
      const two = text.slice(i, i + 2);
      const op = two === "==" || two === "!=" ? two : ch;
      out.push({ type: "op", text: op });
      i += op.length;
    } else {
      const start = i;
      while (i < text.length && !SPECIAL.includes(text[i]!) && !/\s/.test(text[i]!)) i++;
      out.push({ type: "id", text: text.slice(start, i) });
    }
  }
  out.push({ type: "end", text: "" });
  return out;
}

const requirementError = (detail: string) => badRequest(`unable to parse requirement: ${detail}`);

function checkKey(key: string): void {
  const problem = qualifiedNameProblems(key)[0];
  if (problem) throw requirementError(`key: Invalid value: ${JSON.stringify(key)}: ${problem}`);
}

function checkValue(key: string, value: string, index: number): void {
  const problem = labelValueProblems(value)[0];
  if (problem) throw requirementError(`values[${index}][${key}]: Invalid value: ${JSON.stringify(value)}: ${problem}`);
}

/** Parses a labelSelector query value; 400 BadRequest naming the first problem. */
export function parseLabelSelector(text: string | undefined): LabelSelector | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  const tokens = lex(text);
  let pos = 0;
  const found = (expected: string) =>
    badRequest(`unable to parse requirement: found '${tokens[pos - 1]?.text ?? ""}', expected: ${expected}`);
  const next = () => tokens[pos++]!;
  const requirements: LabelRequirement[] = [];
  for (;;) {
    let token = next();
    const negated = token.type === "op" && token.text === "!";
    if (negated) token = next();
    if (token.type !== "id") throw found("identifier");
    const key = token.text;
    checkKey(key);
    const after = tokens[pos]!;
    if (after.type === "end" || (after.type === "op" && after.text === ",")) {
      requirements.push({ op: negated ? "!" : "exists", key });
    } else if (negated) {
      pos++;
      throw found("',' or 'end of string'");
    } else if (after.type === "op" && ["=", "==", "!="].includes(after.text)) {
      pos++;
      const value = tokens[pos]!.type === "id" ? next().text : "";
      checkValue(key, value, 0);
      requirements.push({ op: after.text === "!=" ? "!=" : "=", key, value });
    } else if (after.type === "op" && (after.text === ">" || after.text === "<")) {
      pos++;
      const value = next();
      if (value.type !== "id") throw requirementError("for 'Gt', 'Lt' operators, exactly one value is required");
      if (!/^-?\d+$/.test(value.text)) throw requirementError("for 'Gt', 'Lt' operators, the value must be an integer");
      requirements.push({ op: after.text, key, value: Number(value.text) });
    } else if (after.type === "id" && (after.text === "in" || after.text === "notin")) {
      pos++;
      if (next().text !== "(") throw found("'('");
      const values: string[] = [];
      // labels.Parse reads "()" as ("") (parseValues), so a value set is never empty: `app in ()` holds for app="".
      for (;;) {
        const value = tokens[pos]!.type === "id" ? next().text : "";
        checkValue(key, value, values.length);
        values.push(value);
        const sep = next();
        if (sep.text === ")") break;
        if (sep.text !== ",") throw found("',' or ')'");
      }
      requirements.push({ op: after.text, key, values: new Set(values) });
    } else {
      pos++;
      throw found("'=', '!=', '==', 'in', 'notin', '<', '>', ',' or 'end of string'");
    }
    const sep = next();
    if (sep.type === "end") break;
    if (sep.text !== ",") throw found("',' or 'end of string'");
    if (tokens[pos]!.type === "end") {
      pos++;
      throw found("identifier after ','");
    }
  }
  return { requirements };
}

/** True when `labels` satisfy the selector. */
export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  for (const r of selector.requirements) {
    const v = labels === undefined || !Object.hasOwn(labels, r.key) ? undefined : labels[r.key];
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
      case ">":
      case "<":
        if (v === undefined || !/^-?\d+$/.test(v)) return false;
        if (r.op === ">" ? !(Number(v) > r.value) : !(Number(v) < r.value)) return false;
        break;
    }
  }
  return true;
}

/** Splits field selector terms on commas (values cannot contain them). */
function splitTerms(text: string): string[] {
  return text
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

/** The API server's words for a field selector the kind does not support (its field-label conversion's). */
function fieldLabelRefusal(kind: ResourceKind, field: string): string {
  if (kind.fieldLabelConversion === "core") return `field label not supported: ${field}`;
  if (kind.fieldLabelConversion === "job") return `field label ${JSON.stringify(field)} not supported for Job`;
  return `${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

/** 400 unless every term of the field selector is one the resource supports (metadata.name/namespace + its own). */
export function checkFieldSelector(kind: ResourceKind, selector: FieldSelector | undefined): void {
  for (const term of selector?.terms ?? []) {
    const field = term.path.join(".");
    if (field === "metadata.name" || field === "metadata.namespace" || kind.fieldLabels?.includes(field)) continue;
    throw badRequest(fieldLabelRefusal(kind, field));
  }
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
export function selectorFromSpec(
  spec: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | undefined,
): LabelSelector {
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

/** metav1.FormatLabelSelector: a LabelSelector object as selector text ("app=web,tier in (a,b)"), "<none>" if empty. */
export function formatLabelSelector(
  selector: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | undefined,
): string {
  const parts = Object.keys(selector?.matchLabels ?? {})
    .sort()
    .map((k) => `${k}=${selector!.matchLabels![k]}`);
  for (const e of selector?.matchExpressions ?? []) {
    if (e.operator === "Exists") parts.push(e.key);
    else if (e.operator === "DoesNotExist") parts.push(`!${e.key}`);
    else parts.push(`${e.key} ${e.operator === "In" ? "in" : "notin"} (${[...(e.values ?? [])].sort().join(",")})`);
  }
  return parts.length === 0 ? "<none>" : parts.join(",");
}
