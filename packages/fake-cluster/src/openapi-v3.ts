// A minimal OpenAPI v3 description (/openapi/v3): the paths and their query parameters, so kubectl sees that the
// server validates fields itself (it then sends fieldValidation=Strict instead of validating client-side). No
// schemas: `kubectl explain` has nothing to show (a documented divergence).
import type { ResourceKind } from "./resource-kinds.js";
import { RESOURCE_NAMES, apiVersionOf, resourceKind } from "./resource-kinds.js";

const groupVersionPath = (k: ResourceKind) => (k.group ? `apis/${k.group}/${k.version}` : `api/${k.version}`);
const allKinds = () => RESOURCE_NAMES.map((r) => resourceKind(r)!);

/** GET /openapi/v3: where each group version's document is. */
export function openApiRoot() {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const k of allKinds())
    paths[groupVersionPath(k)] = { serverRelativeURL: `/openapi/v3/${groupVersionPath(k)}?hash=${apiVersionOf(k).replace("/", "-")}` };
  return { paths };
}

const queryParameter = (name: string) => ({ name, in: "query", schema: { type: "string", uniqueItems: true } });
const WRITE_PARAMETERS = ["dryRun", "fieldManager", "fieldValidation"].map(queryParameter);

/** GET /openapi/v3/{api/v1 | apis/group/version}; undefined when not served. */
export function openApiDocument(path: string) {
  const kinds = allKinds().filter((k) => groupVersionPath(k) === path);
  if (kinds.length === 0) return undefined;
  const paths: Record<string, unknown> = {};
  for (const k of kinds) {
    const gvk = { group: k.group, version: k.version, kind: k.kind };
    const operation = (id: string) => ({
      operationId: id,
      "x-kubernetes-group-version-kind": gvk,
      parameters: WRITE_PARAMETERS,
      responses: {},
    });
    const base = `/${path}${k.namespaced ? "/namespaces/{namespace}" : ""}/${k.resource}`;
    paths[base] = { post: operation(`create${k.kind}`) };
    paths[`${base}/{name}`] = { put: operation(`replace${k.kind}`), patch: operation(`patch${k.kind}`) };
  }
  return { openapi: "3.0.0", info: { title: "Kubernetes (shiplog fake cluster)", version: "v1.32.0" }, paths, components: { schemas: {} } };
}
