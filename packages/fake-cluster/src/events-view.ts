// events.k8s.io/v1 Events: the same objects as core v1 Events (one store, as in the API server), seen through the
// conversion the API server applies: involvedObject <-> regarding, message <-> note, reportingComponent <->
// reportingController, source/firstTimestamp/lastTimestamp/count <-> deprecatedSource/deprecatedFirstTimestamp/
// deprecatedLastTimestamp/deprecatedCount. Not checked: the events.k8s.io validation (required eventTime,
// reportingController, reportingInstance, action).
import type { KubeObject } from "./kube-object.js";
import type { ResourceKind } from "./resource-kinds.js";

/** events.k8s.io/v1 Event: stored as core Events (resource "events"), answered in its own shape. */
export const EVENTS_V1_KIND: ResourceKind = {
  resource: "events",
  group: "events.k8s.io",
  version: "v1",
  kind: "Event",
  namespaced: true,
  hasStatus: false,
  defaultPropagation: "Background",
  shortNames: ["ev"],
  view: true,
};

/** core field -> events.k8s.io/v1 field (the rest are named alike). */
const RENAMED: [string, string][] = [
  ["involvedObject", "regarding"],
  ["message", "note"],
  ["reportingComponent", "reportingController"],
  ["source", "deprecatedSource"],
  ["firstTimestamp", "deprecatedFirstTimestamp"],
  ["lastTimestamp", "deprecatedLastTimestamp"],
  ["count", "deprecatedCount"],
];

function rename(obj: KubeObject, pairs: [string, string][], apiVersion: string): KubeObject {
  const out: KubeObject = { ...obj, apiVersion };
  for (const [from, to] of pairs) {
    delete out[from];
    if (obj[from] !== undefined) out[to] = obj[from];
  }
  return out;
}

/** A stored (core) Event as events.k8s.io/v1 answers it. */
export function eventToV1(core: KubeObject): KubeObject {
  return rename(core, RENAMED, "events.k8s.io/v1");
}

/** An events.k8s.io/v1 Event as stored (core v1). */
export function eventFromV1(v1: KubeObject): KubeObject {
  return rename(
    v1,
    RENAMED.map(([core, view]) => [view, core]),
    "v1",
  );
}

/** The JSON of a stored Event in the shape `kind` answers in. */
export function viewJson(kind: ResourceKind, json: string): string {
  return kind.view ? JSON.stringify(eventToV1(JSON.parse(json) as KubeObject)) : json;
}
