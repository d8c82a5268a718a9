// The controller's label selector parser and the fake cluster's answer the same table of cases (the API server's
// behaviour), so neither can drift from Kubernetes or from each other; the Helm chart checks the grammar as one
// pattern (generated from the controller's LABEL_SELECTOR_PATTERN), which must accept the same ones.
import { readFileSync } from "node:fs";
import { parseLabelSelector as controllerParse } from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";
import { matchesLabels, parseLabelSelector as fakeParse } from "../packages/fake-cluster/src/selectors.js";
import { LABEL_SELECTOR_CASES } from "./support/label-selector-cases.js";
import { patternIn } from "./chart/controller-rules.js";

type Parser = (text: string) => ((labels: Record<string, string>) => boolean) | undefined;

const parsers: [string, Parser][] = [
  [
    "controller",
    (text) => {
      const parsed = controllerParse(text);
      return parsed.ok ? (labels) => parsed.value.matches(labels) : undefined;
    },
  ],
  [
    "fake cluster",
    (text) => {
      try {
        const selector = fakeParse(text)!;
        return (labels) => matchesLabels(selector, labels);
      } catch {
        return undefined;
      }
    },
  ],
];

describe.each(parsers)("label selector conformance: %s parser", (name, parse) => {
  it.each(LABEL_SELECTOR_CASES.map((c) => [c.selector, c] as const))("%s", (_selector, c) => {
    const matcher = parse(c.selector);
    if (name === "controller" && c.controllerRefuses) return expect(matcher, c.controllerRefuses).toBeUndefined();
    expect(matcher !== undefined, `accepts ${JSON.stringify(c.selector)}`).toBe(c.valid);
    for (const [labels, expected] of c.matches ?? []) expect(matcher!(labels), JSON.stringify(labels)).toBe(expected);
  });
});

/** The chart's label selector check (templates/_controller-rules.tpl's patterns), as Helm makes it on a non-empty selector. */
const rulesTemplate = readFileSync(new URL("../charts/shiplog-controller/templates/_controller-rules.tpl", import.meta.url), "utf8");
const grammar = new RegExp(patternIn(rulesTemplate, "labelSelectorPattern"));
const longPrefix = new RegExp(patternIn(rulesTemplate, "labelSelectorLongPrefix"));
const chartAccepts = (selector: string) => grammar.test(selector) && !longPrefix.test(selector);

describe("label selector conformance: the chart's pattern", () => {
  // The table's cases, and the corners of the grammar where a regular expression could part from the parser.
  const extra = ["in", "in in (a)", "a in(b)", "a in (,b)", "a in (b,)", "a in (b c)", "a notin", "a!=", "a = b c", "a>-5", "a>5b"];
  const extraCases = ["  ", "!=x", "a >= 1", "a===b", "/app=x", "a in (b) c", "!a,b", "a/b=c", " a , b ", "a,,b", "Bad_Prefix/app=x"];
  // A key prefix at and past its 253 characters, first and after other requirements.
  const prefix = (n: number) =>
    `${"a".repeat(61)}.`
      .repeat(Math.ceil(n / 62))
      .slice(0, n)
      .replace(/\.$/, "b");
  const longCases = [`${prefix(253)}/k=v`, `${prefix(254)}/k=v`, `x=y,!${prefix(254)}/k`, `x in (y), ${prefix(253)}/k`];
  it.each([...LABEL_SELECTOR_CASES.map((c) => c.selector), ...extra, ...extraCases, ...longCases])("%j", (selector) => {
    expect(chartAccepts(selector), `accepts ${JSON.stringify(selector)}`).toBe(controllerParse(selector).ok);
  });
});
