// The controller's label selector parser and the fake cluster's answer the same table of cases (the API server's
// behaviour), so neither can drift from Kubernetes or from each other.
import { parseLabelSelector as controllerParse } from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";
import { matchesLabels, parseLabelSelector as fakeParse } from "../packages/fake-cluster/src/selectors.js";
import { LABEL_SELECTOR_CASES } from "./support/label-selector-cases.js";

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

describe.each(parsers)("label selector conformance: %s parser", (_name, parse) => {
  it.each(LABEL_SELECTOR_CASES.map((c) => [c.selector, c] as const))("%s", (_selector, c) => {
    const matcher = parse(c.selector);
    expect(matcher !== undefined, `accepts ${JSON.stringify(c.selector)}`).toBe(c.valid);
    for (const [labels, expected] of c.matches ?? []) expect(matcher!(labels), JSON.stringify(labels)).toBe(expected);
  });
});
