// ValidatePodSpec, for the rules a controller or a kubectl user can hit: containers (name, image, unique names),
// restart policy, DNS policy, ports, pull policy.
import type { Container, PodSpec } from "../object-kinds.js";
import type { FieldError } from "./field-errors.js";
import { duplicate, invalidValue, notSupported, required } from "./field-errors.js";
import { dns1123LabelProblems } from "./names.js";

const PULL_POLICIES = ["Always", "IfNotPresent", "Never"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const TERMINATION_MESSAGE_POLICIES = ["File", "FallbackToLogsOnError"];

function validateContainers(list: Container[] | undefined, path: string, names: Set<string>): FieldError[] {
  const out: FieldError[] = [];
  (list ?? []).forEach((c, i) => {
    const at = `${path}[${i}]`;
    if (!c.name) out.push(required(`${at}.name`));
    else {
      for (const m of dns1123LabelProblems(c.name)) out.push(invalidValue(`${at}.name`, c.name, m));
      if (names.has(c.name)) out.push(duplicate(`${at}.name`, c.name));
      names.add(c.name);
    }
    if (!c.image || c.image.trim() === "") out.push(required(`${at}.image`));
    if (c.imagePullPolicy !== undefined && !PULL_POLICIES.includes(c.imagePullPolicy)) {
      out.push(notSupported(`${at}.imagePullPolicy`, c.imagePullPolicy, PULL_POLICIES));
    }
    if (c.terminationMessagePolicy !== undefined && !TERMINATION_MESSAGE_POLICIES.includes(c.terminationMessagePolicy)) {
      out.push(notSupported(`${at}.terminationMessagePolicy`, c.terminationMessagePolicy, TERMINATION_MESSAGE_POLICIES));
    }
    (c.ports ?? []).forEach((p, j) => {
      const pp = `${at}.ports[${j}]`;
      if (p.containerPort === undefined || p.containerPort < 1 || p.containerPort > 65535) {
        out.push(invalidValue(`${pp}.containerPort`, p.containerPort ?? 0, "must be between 1 and 65535, inclusive"));
      }
      if (p.protocol !== undefined && !PROTOCOLS.includes(p.protocol)) out.push(notSupported(`${pp}.protocol`, p.protocol, PROTOCOLS));
    });
    (c.env ?? []).forEach((e, j) => {
      if (!e.name) out.push(required(`${at}.env[${j}].name`));
    });
  });
  return out;
}

/** A pod spec at `path` ("spec", "spec.template.spec"); `restartPolicies` are the ones this owner allows. */
export function validatePodSpec(spec: PodSpec | undefined, path: string, restartPolicies: string[]): FieldError[] {
  const out: FieldError[] = [];
  if (spec === undefined || spec === null) return [required(`${path}.containers`)];
  if (!Array.isArray(spec.containers) || spec.containers.length === 0) out.push(required(`${path}.containers`));
  const names = new Set<string>();
  out.push(...validateContainers(spec.containers, `${path}.containers`, names));
  out.push(...validateContainers(spec.initContainers, `${path}.initContainers`, names));
  out.push(...validateContainers(spec.ephemeralContainers, `${path}.ephemeralContainers`, names));
  const restart = spec.restartPolicy ?? "Always";
  // A Job's template: Always is the pod default, so the API server asks for a value rather than refusing one.
  if (restart === "Always" && !restartPolicies.includes(restart)) {
    out.push(required(`${path}.restartPolicy`, `valid values: ${restartPolicies.map((p) => JSON.stringify(p)).join(", ")}`));
  } else if (!restartPolicies.includes(restart)) out.push(notSupported(`${path}.restartPolicy`, restart, restartPolicies));
  if (spec.dnsPolicy !== undefined && !DNS_POLICIES.includes(spec.dnsPolicy))
    out.push(notSupported(`${path}.dnsPolicy`, spec.dnsPolicy, DNS_POLICIES));
  if (spec.terminationGracePeriodSeconds !== undefined && spec.terminationGracePeriodSeconds < 0) {
    out.push(
      invalidValue(`${path}.terminationGracePeriodSeconds`, spec.terminationGracePeriodSeconds, "must be greater than or equal to 0"),
    );
  }
  if (spec.activeDeadlineSeconds !== undefined && spec.activeDeadlineSeconds <= 0) {
    out.push(invalidValue(`${path}.activeDeadlineSeconds`, spec.activeDeadlineSeconds, "must be between 1 and 2147483647, inclusive"));
  }
  return out;
}
