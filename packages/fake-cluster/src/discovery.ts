// Discovery documents (/api, /apis, /api/v1, /apis/{group}/{version}) as kubectl reads them to map `deploy`,
// `all` and `scale` onto resources.
import type { ResourceKind } from "./resource-kinds.js";
import { RESOURCE_NAMES, resourceKind } from "./resource-kinds.js";
import { EVENTS_V1_KIND } from "./events-view.js";

const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];
const allKinds = () => [...RESOURCE_NAMES.map((r) => resourceKind(r)!), EVENTS_V1_KIND];

/** GET /apis */
export function apiGroupList() {
  const groups = [
    ...new Set(
      allKinds()
        .filter((k) => k.group !== "")
        .map((k) => `${k.group}/${k.version}`),
    ),
  ];
  return {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: groups.map((gv) => {
      const [group, version] = gv.split("/") as [string, string];
      return { name: group, versions: [{ groupVersion: gv, version }], preferredVersion: { groupVersion: gv, version } };
    }),
  };
}

function resourceEntries(k: ResourceKind) {
  const main: Record<string, unknown> = {
    name: k.resource,
    singularName: k.kind.toLowerCase(),
    namespaced: k.namespaced,
    kind: k.kind,
    verbs: VERBS,
  };
  if (k.shortNames) main.shortNames = k.shortNames;
  if (k.categories) main.categories = k.categories;
  const subresource = (name: string, kind: string, verbs: string[], group?: string, version?: string) => ({
    name: `${k.resource}/${name}`,
    singularName: "",
    namespaced: k.namespaced,
    ...(group !== undefined && { group, version }),
    kind,
    verbs,
  });
  return [
    main,
    ...(k.hasStatus ? [subresource("status", k.kind, ["get", "patch", "update"])] : []),
    ...(k.hasScale ? [subresource("scale", "Scale", ["get", "patch", "update"], "autoscaling", "v1")] : []),
  ];
}

/** GET /api/v1 or /apis/{group}/{version}; undefined when the group version is not served. */
export function apiResourceList(group: string, version: string) {
  const kinds = allKinds().filter((k) => k.group === group && k.version === version);
  if (kinds.length === 0) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: kinds.flatMap(resourceEntries),
  };
}
