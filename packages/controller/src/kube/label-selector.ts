// Kubernetes label selectors (apimachinery's labels.Parse): parsed and checked at start, so a typo fails the
// configuration instead of every list call, and matched locally, so workloads are filtered as their pods are.
//
//   selector    := requirement ( "," requirement )*
//   requirement := key | "!" key | key ("=" | "==" | "!=") value | key ("in" | "notin") "(" values ")"
//                | key (">" | "<") integer
//   key         := [prefix "/"] name   prefix: DNS subdomain (≤ 253), name: ≤ 63 of [A-Za-z0-9._-], alphanumeric at
//                                      both ends
//   value       := "" or ≤ 63 of [A-Za-z0-9._-], alphanumeric at both ends
import type { Parsed } from "../mapping/image-reference.js";

/** One requirement of a selector. */
export type LabelRequirement =
  | { key: string; operator: "exists" | "!exists" }
  | { key: string; operator: "=" | "!="; value: string }
  | { key: string; operator: "in" | "notin"; values: string[] }
  | { key: string; operator: ">" | "<"; value: number };

/** A parsed selector: every requirement must hold. */
export interface LabelSelector {
  requirements: LabelRequirement[];
  /** Whether a set of labels satisfies every requirement. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
}

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SPECIAL = new Set(["=", "!", "(", ")", ",", ">", "<"]);

type Token = { kind: "id"; text: string; at: number } | { kind: "op"; text: string; at: number } | { kind: "end"; at: number };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (SPECIAL.has(ch)) {
      const two = text.slice(i, i + 2);
      const op = two === "==" || two === "!=" ? two : ch;
      tokens.push({ kind: "op", text: op, at: i });
      i += op.length;
      continue;
    }
    const start = i;
    while (i < text.length && !SPECIAL.has(text[i]!) && !/\s/.test(text[i]!)) i++;
    tokens.push({ kind: "id", text: text.slice(start, i), at: start });
  }
  tokens.push({ kind: "end", at: text.length });
  return tokens;
}

/** Why a label key breaks the rules, or undefined when it is valid. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined) {
    if (prefix === "") return `label key "${key}": the prefix before "/" must not be empty`;
    if (prefix.length > 253) return `label key "${key}": the prefix must be at most 253 characters`;
    if (!DNS_SUBDOMAIN.test(prefix)) return `label key "${key}": the prefix must be a DNS subdomain (lowercase letters, digits, '-', '.')`;
  }
  if (name === "") return `label key "${key}": the name must not be empty`;
  if (name.length > 63) return `label key "${key}": the name must be at most 63 characters`;
  if (!NAME.test(name))
    return `label key "${key}": the name must be letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
  return undefined;
}

/** Why a label value breaks the rules, or undefined when it is valid. */
export function labelValueProblem(value: string): string | undefined {
  if (value === "") return undefined;
  if (value.length > 63) return `label value "${value}" must be at most 63 characters`;
  if (!NAME.test(value))
    return `label value "${value}" must be letters, digits, '-', '_' or '.', starting and ending with a letter or digit`;
  return undefined;
}

function isOp(token: Token, text: string): boolean {
  return token.kind === "op" && token.text === text;
}

function describe(token: Token): string {
  return token.kind === "end" ? "the end" : `"${token.text}" at position ${token.at + 1}`;
}

/** Parses a label selector with Kubernetes' grammar and rules; the reason names the first problem. */
export function parseLabelSelector(text: string): Parsed<LabelSelector> {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = (): Token => tokens[pos]!;
  const next = (): Token => tokens[pos++]!;
  const takeValue = (): string => {
    const token = peek();
    if (token.kind !== "id") return "";
    pos++;
    return token.text;
  };
  const fail = (reason: string): Parsed<LabelSelector> => ({ ok: false, reason });
  const requirements: LabelRequirement[] = [];

  if (peek().kind === "end") return fail("the selector is empty");
  for (;;) {
    let negated = false;
    if (isOp(peek(), "!")) {
      negated = true;
      next();
    }
    const keyToken = next();
    if (keyToken.kind !== "id") return fail(`expected a label key, found ${describe(keyToken)}`);
    const key = keyToken.text;
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) return fail(keyProblem);
    const after = peek();
    if (after.kind === "end" || (after.kind === "op" && after.text === ",")) {
      requirements.push({ key, operator: negated ? "!exists" : "exists" });
    } else if (negated) {
      return fail(`"!${key}" takes no operator; found ${describe(after)}`);
    } else if (after.kind === "op" && ["=", "==", "!="].includes(after.text)) {
      next();
      // A value may be empty (`tier=` matches an empty label value).
      const value = takeValue();
      const valueProblem = labelValueProblem(value);
      if (valueProblem) return fail(valueProblem);
      requirements.push({ key, operator: after.text === "!=" ? "!=" : "=", value });
    } else if (after.kind === "op" && (after.text === ">" || after.text === "<")) {
      next();
      const value = next();
      if (value.kind !== "id" || !/^-?\d+$/.test(value.text))
        return fail(`"${key} ${after.text}" needs an integer, found ${describe(value)}`);
      requirements.push({ key, operator: after.text, value: Number(value.text) });
    } else if (after.kind === "id" && (after.text === "in" || after.text === "notin")) {
      next();
      const open = next();
      if (open.kind !== "op" || open.text !== "(") return fail(`"${key} ${after.text}" needs "(", found ${describe(open)}`);
      const values: string[] = [];
      for (;;) {
        const value = takeValue();
        const valueProblem = labelValueProblem(value);
        if (valueProblem) return fail(valueProblem);
        values.push(value);
        const sep = next();
        if (sep.kind === "op" && sep.text === ",") continue;
        if (sep.kind === "op" && sep.text === ")") break;
        return fail(`expected "," or ")" in the values of "${key} ${after.text}", found ${describe(sep)}`);
      }
      if (values.length === 1 && values[0] === "") return fail(`"${key} ${after.text} ()" needs at least one value`);
      requirements.push({ key, operator: after.text, values });
    } else {
      return fail(`expected "=", "==", "!=", "in", "notin", ">", "<", "," or the end after "${key}", found ${describe(after)}`);
    }
    const sep = next();
    if (sep.kind === "end") break;
    if (sep.kind !== "op" || sep.text !== ",") return fail(`expected "," between requirements, found ${describe(sep)}`);
    if (peek().kind === "end") return fail('the selector ends with ","');
  }
  return { ok: true, value: { requirements, matches: (labels) => requirements.every((r) => requirementHolds(r, labels ?? {})) } };
}

function requirementHolds(r: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const value = labels[r.key];
  switch (r.operator) {
    case "exists":
      return has;
    case "!exists":
      return !has;
    case "=":
      return has && value === r.value;
    case "!=":
      return !has || value !== r.value;
    case "in":
      return has && r.values.includes(value!);
    case "notin":
      return !has || !r.values.includes(value!);
    case ">":
    case "<": {
      if (!has || !/^-?\d+$/.test(value!)) return false;
      const n = Number(value);
      return r.operator === ">" ? n > r.value : n < r.value;
    }
  }
}

/**
 * The same grammar as one anchored regular expression (in the syntax JavaScript and Go's RE2 share), for checkers
 * that cannot run the parser: the Helm chart's values schema is generated from it (`pnpm chart:generate`), and the
 * label selector conformance table holds it to the parser's answers. The empty text is left to the caller (the
 * controller reads an empty setting as unset). The one rule it cannot hold, a key prefix's 253-character limit, is
 * LABEL_SELECTOR_LONG_PREFIX: a selector is valid when it matches this pattern and not that one.
 */
export const LABEL_SELECTOR_PATTERN = ((): string => {
  const ws = "\\s*";
  const name = "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?";
  const prefix = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
  const key = `(${prefix}/)?${name}`;
  const value = name;
  const values = `(${value}${ws}(,${ws}(${value})?${ws})*|(,${ws}(${value})?${ws})+)`;
  const operation = `${ws}(==|!=|=)${ws}(${value})?|\\s+(in|notin)${ws}\\(${ws}${values}\\)|${ws}[<>]${ws}-?[0-9]+`;
  const requirement = `(!${ws}${key}|${key}(${operation})?)`;
  return `^${ws}${requirement}${ws}(,${ws}${requirement}${ws})*$`;
})();

/** A key prefix (the text before "/" in a word of the selector) longer than 253 characters: see LABEL_SELECTOR_PATTERN. */
export const LABEL_SELECTOR_LONG_PREFIX = "(^|[\\s,!=()<>])[^\\s,!=()<>/]{254,}/";
