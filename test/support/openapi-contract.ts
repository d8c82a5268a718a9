// The public OpenAPI description of the service, for contract tests. It names the service
// `github` where our spec says `service`; the schemas themselves carry no brand names we check.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv, type ValidateFunction } from "ajv";

const require = createRequire(import.meta.url);

interface OpenApiOperation {
  operationId: string;
  parameters?: unknown[];
  requestBody?: { content?: Record<string, { schema?: unknown; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, { content?: Record<string, { schema?: unknown; examples?: Record<string, { value: unknown }> }> }>;
}

let document: { paths: Record<string, Record<string, OpenApiOperation>> } | undefined;

function load() {
  document ??= JSON.parse(readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.deref.json"), "utf8"));
  return document!;
}

/** The official operation for a method and path template (`/orgs/{org}/...`). */
export function operation(method: string, path: string): OpenApiOperation {
  const op = load().paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`the OpenAPI description has no ${method} ${path}`);
  return op;
}

/**
 * An official example with the service's names: the OpenAPI writes `github` where the spec writes `service`
 * (`performed_via_github_app`), except in `github_repository`, which the spec keeps (4.1).
 */
export function toService(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toService);
  if (!value || typeof value !== "object") return value;
  const rename = (key: string) => (key === "github_repository" ? key : key.replaceAll("github", "service"));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [rename(key), toService(item)]));
}

/** Every official response example of an operation, as [status, name, value]. */
export function responseExamples(method: string, path: string): [string, string, unknown][] {
  const out: [string, string, unknown][] = [];
  for (const [status, response] of Object.entries(operation(method, path).responses)) {
    const media = response.content?.["application/json"];
    for (const [name, example] of Object.entries(media?.examples ?? {})) out.push([status, name, example.value]);
  }
  return out;
}

/** Every official request example of an operation. */
export function requestExamples(method: string, path: string): [string, unknown][] {
  const media = operation(method, path).requestBody?.content?.["application/json"];
  return Object.entries(media?.examples ?? {}).map(([name, example]) => [name, example.value]);
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const cache = new Map<string, ValidateFunction>();

/** Strips OpenAPI-only keywords and turns `nullable` into a JSON Schema type union. */
export function toJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "example" || key === "examples" || key === "nullable" || key.startsWith("x-")) continue;
    out[key] = key === "properties" || key === "patternProperties" ? mapValues(value as Record<string, unknown>) : toJsonSchema(value);
  }
  const s = schema as Record<string, unknown>;
  if (s.nullable === true) {
    if (typeof out.type === "string") out.type = [out.type, "null"];
    if (Array.isArray(out.enum)) out.enum = [...(out.enum as unknown[]), null];
    if (!out.type && !out.enum) return { anyOf: [out, { type: "null" }] };
  }
  return out;
}

function mapValues(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, toJsonSchema(v)]));
}

/** Validates a response body against the official schema for that status; returns ajv's errors or []. */
export function validateResponse(method: string, path: string, status: number, body: unknown): string[] {
  const key = `${method} ${path} ${status}`;
  let validate = cache.get(key);
  if (!validate) {
    const schema = operation(method, path).responses[String(status)]?.content?.["application/json"]?.schema;
    if (!schema) throw new Error(`no ${status} response schema for ${method} ${path}`);
    validate = ajv.compile(toJsonSchema(schema) as object);
    cache.set(key, validate);
  }
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message}`);
}
