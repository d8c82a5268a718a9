// One table of label selector cases, following what Kubernetes' API machinery documents for `labelSelector`
// (labels.Parse): run against every parser in the project, so the controller's and the fake cluster's cannot drift.

/** A selector, whether the API server accepts it, and (when accepted) which label sets it matches. */
export interface SelectorCase {
  selector: string;
  valid: boolean;
  matches?: [labels: Record<string, string>, expected: boolean][];
  /** Why the controller's parser refuses a selector the API server accepts (it is stricter with its own setting). */
  controllerRefuses?: string;
}

export const LABEL_SELECTOR_CASES: SelectorCase[] = [
  // Equality: `=` and `==` are the same; `!=` also holds when the label is absent.
  {
    selector: "app=web",
    valid: true,
    matches: [
      [{ app: "web" }, true],
      [{ app: "api" }, false],
      [{}, false],
    ],
  },
  { selector: "app==web", valid: true, matches: [[{ app: "web" }, true]] },
  { selector: " app = web ", valid: true, matches: [[{ app: "web" }, true]] },
  {
    selector: "app!=web",
    valid: true,
    matches: [
      [{ app: "web" }, false],
      [{ app: "api" }, true],
      [{}, true],
    ],
  },
  {
    selector: "app=",
    valid: true,
    matches: [
      [{ app: "" }, true],
      [{}, false],
    ],
  },
  // Sets: `in` needs the label, `notin` also holds without it.
  {
    selector: "tier in (front, back)",
    valid: true,
    matches: [
      [{ tier: "back" }, true],
      [{ tier: "mid" }, false],
      [{}, false],
    ],
  },
  {
    selector: "tier notin (front)",
    valid: true,
    matches: [
      [{ tier: "front" }, false],
      [{ tier: "back" }, true],
      [{}, true],
    ],
  },
  // Existence.
  {
    selector: "canary",
    valid: true,
    matches: [
      [{ canary: "" }, true],
      [{}, false],
    ],
  },
  {
    selector: "!canary",
    valid: true,
    matches: [
      [{ canary: "x" }, false],
      [{}, true],
    ],
  },
  // Integer comparisons: only integer label values can satisfy them.
  {
    selector: "tier>1",
    valid: true,
    matches: [
      [{ tier: "2" }, true],
      [{ tier: "1" }, false],
      [{ tier: "x" }, false],
      [{}, false],
    ],
  },
  {
    selector: "tier<10",
    valid: true,
    matches: [
      [{ tier: "9" }, true],
      [{ tier: "10" }, false],
    ],
  },
  // Several requirements: all must hold.
  {
    selector: "app=web,!legacy,tier in (a,b)",
    valid: true,
    matches: [
      [{ app: "web", tier: "a" }, true],
      [{ app: "web", tier: "a", legacy: "1" }, false],
    ],
  },
  { selector: "example.com/team=a.b_c-d", valid: true, matches: [[{ "example.com/team": "a.b_c-d" }, true]] },
  // labels.Parse reads an empty set as ("") (apimachinery pkg/labels/selector.go, parseValues; kube-apiserver v1.37
  // answers `kubectl get po -l 'app in ()'` with no pods, not a 400).
  {
    selector: "app in ()",
    valid: true,
    matches: [
      [{ app: "" }, true],
      [{ app: "web" }, false],
      [{}, false],
    ],
    controllerRefuses: "an empty value set in the controller's own setting is refused as a likely mistake",
  },
  {
    selector: "app notin ()",
    valid: true,
    matches: [
      [{ app: "" }, false],
      [{ app: "web" }, true],
    ],
    controllerRefuses: "an empty value set in the controller's own setting is refused as a likely mistake",
  },
  // Refused: dangling commas, malformed keys and values, operators that do not fit.
  { selector: "app=web,", valid: false },
  { selector: ",app=web", valid: false },
  { selector: "app=-bad-", valid: false },
  { selector: `app=${"v".repeat(64)}`, valid: false },
  { selector: `${"k".repeat(64)}=a`, valid: false },
  { selector: "x/y/z=a", valid: false },
  { selector: "Example.com/app=a", valid: false },
  { selector: "bad label=1", valid: false },
  { selector: "tier>one", valid: false },
  { selector: "tier in a", valid: false },
  { selector: "tier in (a", valid: false },
  { selector: "!app=web", valid: false },
  { selector: "app=a=b", valid: false },
];
