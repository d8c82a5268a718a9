// The form of an answer the client asked for in Accept, negotiated as the API server does: the first media type it can
// serve wins. Besides the object itself: a meta.k8s.io Table (kubectl get), and PartialObjectMetadata, the metadata
// alone (metadata-only informers; a writer that needs only the new resourceVersion). Watch events carry either form.
// The API server transforms the answer to a write (create, update, patch) the same way as a read's. It accepts either
// metadata kind in negotiation and answers 406 when it does not fit (a list asked for as one object, or the reverse).
// Media types this server does not speak (YAML, protobuf) are passed over; when nothing else is listed, the answer is
// JSON. Not modelled: q-values (entries are taken in order).
import type { KubeObject } from "./kube-object.js";
import { objectJson, partialObjectMetadata } from "./kube-object.js";
import type { ResourceName } from "./resource-kinds.js";
import { ApiError } from "./status.js";
import { toTable } from "./table-printers.js";

/** The answer's form: the object (or list), a Table, or the metadata alone (meta.k8s.io `version`). */
export type OutputForm = { kind: "object" } | { kind: "table" } | { kind: "metadata"; version: string };

const META_VERSIONS = new Set(["v1", "v1beta1"]);
const JSON_TYPES = new Set(["application/json", "application/*", "*/*"]);

/** The form asked for; `list` for a collection, where metadata comes as PartialObjectMetadataList. */
export function outputForm(accept: string | undefined, list: boolean): OutputForm {
  for (const entry of (accept ?? "").split(",")) {
    const [type = "", ...parameters] = entry.split(";").map((part) => part.trim());
    if (!JSON_TYPES.has(type.toLowerCase())) continue;
    const params = new Map(parameters.map((p) => p.split("=").map((s) => s.trim()) as [string, string]));
    const as = params.get("as");
    if (as === undefined) return { kind: "object" };
    if (params.get("g") !== "meta.k8s.io" || !META_VERSIONS.has(params.get("v") ?? "")) continue;
    if (as === "Table") return { kind: "table" };
    if (as === "PartialObjectMetadata" || as === "PartialObjectMetadataList") {
      if (as !== (list ? "PartialObjectMetadataList" : "PartialObjectMetadata"))
        throw new ApiError(
          406,
          "NotAcceptable",
          `only the following media types are accepted: ${list ? "PartialObjectMetadataList" : "PartialObjectMetadata"}`,
        );
      return { kind: "metadata", version: params.get("v")! };
    }
  }
  return { kind: "object" };
}

/**
 * A watch event's object as JSON text, in the form asked for (a Table of its one row, for `kubectl get -w`); `now`
 * (the cluster clock's) dates a Table's ages.
 */
export function formatEventObject(
  form: OutputForm,
  resource: ResourceName,
  json: string,
  includeObject: string | undefined,
  now: number,
): string {
  return form.kind === "object" ? json : formatObject(form, resource, JSON.parse(json) as KubeObject, includeObject, now);
}

/** One object (a read's or a write's answer) as JSON text, in the form asked for; `now` dates a Table's ages. */
export function formatObject(
  form: OutputForm,
  resource: ResourceName,
  obj: KubeObject,
  includeObject: string | undefined,
  now: number,
): string {
  if (form.kind === "metadata") return JSON.stringify(partialObjectMetadata(obj, form.version));
  if (form.kind === "table")
    return JSON.stringify(toTable(resource, [obj], { resourceVersion: obj.metadata.resourceVersion }, includeObject, now));
  return objectJson(obj);
}
