// Where the spec (service-api.md) wins over the OpenAPI description, for the emulator's operations (the endpoints
// of the client's registry).
// Every override here is listed in packages/emulator/README.md ("Where the spec and the OpenAPI disagree").

/** The spec writes `service` where the OpenAPI writes `github`, except in `github_repository` (spec 4.1 keeps it). */
export function serviceNames(schema) {
  if (Array.isArray(schema)) return schema.map(serviceNames);
  if (!schema || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties") {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [rename(k), serviceNames(v)]));
    } else if (key === "required" && Array.isArray(value)) {
      out[key] = value.map(rename);
    } else out[key] = serviceNames(value);
  }
  return out;
}

const rename = (name) => (name === "github_repository" ? name : name.replaceAll("github", "service"));

/** Applies the spec's rules over one operation's schemas (each commented with its section). */
export function applySpecOverrides(key, schemas) {
  const { params, body } = schemas;
  // Section 8: page and per_page are positive. per_page above a list's maximum (50 on /notifications, 100 elsewhere)
  // is not refused: the service caps it to the maximum (production-facts.md, "More HTTP details"); the routes cap it.
  if (params.properties.per_page) params.properties.per_page = { ...params.properties.per_page, minimum: 1 };
  if (params.properties.page) params.properties.page = { ...params.properties.page, minimum: 1 };
  // Spec 4.4b: `since` on the authors list is an integer id (the OpenAPI agrees); kept as is.

  if (key === "POST /orgs/{org}/artifacts/metadata/storage-record") {
    // Spec 2.3 and 4.1: storage status values seen are `active` and `inactive`; the OpenAPI enum lacks `inactive`.
    const status = body.properties.status;
    body.properties.status = { ...status, enum: [...new Set([...(status.enum ?? []), "inactive"])] };
  }
  if (key === "POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}") {
    // The single deployment record allows at most 5 tags (OpenAPI); a cluster entry is the same record, so the
    // same limit applies (README, assumptions).
    const entry = body.properties.deployments.items;
    entry.properties.tags = { ...entry.properties.tags, maxProperties: 5 };
  }
  if (key === "POST /repos/{owner}/{repo}/git/tags") {
    // Spec 4.2: tagger `date` is a timestamp; `name` and `email` are required when tagger is given (both agree).
  }
  return schemas;
}
