import type { FastifyReply, FastifyRequest } from "fastify";
import type { KubeObject } from "./kube-object.js";
import type { Scale } from "./scale-subresource.js";
import { one, type Query } from "./request-target.js";
import { DecodeError, decodeObject } from "./validation/index.js";
import { decode, type Decoded } from "./validation/schema.js";
import { scaleSchema } from "./validation/kind-schemas.js";
import type { ResourceKind } from "./resource-kinds.js";
import { ApiError, badRequest } from "./status.js";
import { managerFromUserAgent } from "./managed-fields.js";
import { decodeProtobufBody, ProtobufBodyError } from "./protobuf-body.js";

/** The text media types request bodies may declare; the ones the fake cannot read are refused by `parseBody`. */
export const BODY_TYPES = [
  "application/json",
  "application/merge-patch+json",
  "application/strategic-merge-patch+json",
  "application/json-patch+json",
  "application/apply-patch+yaml",
  "application/yaml",
];

/** Kubernetes' protobuf encoding: read as bytes, into the object its JSON would be (protobuf-body.ts). */
export const PROTOBUF_TYPE = "application/vnd.kubernetes.protobuf";

/** Server-side apply, YAML and the kinds protobuf-body.ts has no schema for are refused with a 415 that says so. */
export function unsupportedMediaType(type: string): ApiError {
  if (type.includes("apply-patch")) {
    return new ApiError(
      415,
      "UnsupportedMediaType",
      "server-side apply (application/apply-patch+yaml) is not supported by the shiplog fake cluster; " +
        "use client-side apply (kubectl apply --server-side=false)",
    );
  }
  return new ApiError(
    415,
    "UnsupportedMediaType",
    "the body of the request was in an unknown format - accepted media types include: " +
      "application/json, application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json",
  );
}

export type FieldValidation = "Strict" | "Warn" | "Ignore";

/**
 * Query options of a write: dryRun=All, fieldValidation (default Warn, as API servers from 1.27), and the field
 * manager: `fieldManager` (at most 128 printable characters, else 422 as ValidateFieldManager), or the User-Agent's
 * product, or "unknown".
 */
export function writeOptions(
  query: Query,
  operation: "Create" | "Update" | "Patch",
  userAgent: string | undefined,
): { dryRun: boolean; fieldValidation: FieldValidation; manager: string } {
  const dryRun = dryRunOption(query.dryRun);
  const validation = one(query, "fieldValidation") ?? "Warn";
  if (validation !== "Strict" && validation !== "Warn" && validation !== "Ignore") {
    throw badRequest(`fieldValidation: Unsupported value: ${JSON.stringify(validation)}: supported values: "Ignore", "Strict", "Warn"`);
  }
  const fieldManager = one(query, "fieldManager");
  if (fieldManager !== undefined) checkFieldManager(fieldManager, `${operation}Options`);
  return { dryRun, fieldValidation: validation, manager: fieldManager || managerFromUserAgent(userAgent) };
}

/** ValidateFieldManager: 422 on the request's options (`CreateOptions.meta.k8s.io "" is invalid: fieldManager: ...`). */
function checkFieldManager(manager: string, optionsKind: string): void {
  const refuse = (reason: string, message: string) =>
    new ApiError(422, "Invalid", `${optionsKind}.meta.k8s.io "" is invalid: fieldManager: ${message}`, {
      group: "meta.k8s.io",
      kind: optionsKind,
      causes: [{ reason, message, field: "fieldManager" }],
    });
  if (Buffer.byteLength(manager) > 128) throw refuse("FieldValueTooLong", "Too long: may not be more than 128 bytes");
  let position = 0;
  for (const ch of manager) {
    if (!/\p{L}|\p{M}|\p{N}|\p{P}|\p{S}| /u.test(ch)) {
      const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
      throw refuse("FieldValueInvalid", `Invalid value: ${JSON.stringify(manager)}: invalid character ${code} (at position ${position})`);
    }
    position++;
  }
}

/** dryRun (the query's or DeleteOptions'): true for "All", false when absent, else a 400. */
export function dryRunOption(raw: unknown): boolean {
  const dry: unknown[] = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  for (const value of dry)
    if (value !== "All") throw badRequest(`dryRun: Unsupported value: ${JSON.stringify(value)}: supported values: "All"`);
  return dry.length > 0;
}

/** Adds `Warning: 299 - "<text>"` headers, as the API server does for dropped fields. */
function addWarnings(reply: FastifyReply, texts: string[]): void {
  const existing = reply.getHeader("Warning");
  const before = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  reply.header("Warning", [...before, ...texts.map((t) => `299 - ${JSON.stringify(t)}`)]);
}

/** Decodes a body as the kind's Go type would: 400 for wrong types, unknown fields warned about or refused. */
export function decodeBody(
  kind: ResourceKind,
  body: unknown,
  validation: FieldValidation,
  reply: FastifyReply,
  schema = decodeObject.bind(null, kind.resource),
): KubeObject {
  const obj = requireObjectBody(body, kind);
  const cannot = `${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}`;
  let decoded: Decoded;
  try {
    decoded = schema(obj);
  } catch (error) {
    if (error instanceof DecodeError) throw badRequest(`${cannot}: ${error.message}`);
    throw error;
  }
  const unknown = decoded.unknownFields.map((f) => `unknown field ${JSON.stringify(f)}`);
  if (unknown.length > 0 && validation === "Strict") throw badRequest(`${cannot}: strict decoding error: ${unknown.join(", ")}`);
  if (unknown.length > 0 && validation === "Warn") addWarnings(reply, unknown);
  const value = decoded.value as KubeObject;
  value.metadata ??= {};
  return value;
}

// The API server's JSON decoder stops at this depth; deeper bodies would overflow recursive code further on.
const MAX_JSON_DEPTH = 10000;

/** Deepest bracket nesting of JSON text, outside strings (one pass, no recursion). */
function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}
/** The request body: undefined when empty, parsed JSON or protobuf otherwise; YAML, over-deep or broken bodies refused. */
export function parseBody(request: FastifyRequest): unknown {
  const raw = request.body;
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (Buffer.isBuffer(raw)) {
    if (raw.length === 0) return undefined;
    try {
      return decodeProtobufBody(raw);
    } catch (error) {
      if (!(error instanceof ProtobufBodyError)) throw error;
      if (error.unsupportedKind) throw new ApiError(415, "UnsupportedMediaType", error.message);
      throw badRequest(`the request body is not valid protobuf: ${error.message}`);
    }
  }
  if (typeof raw !== "string") return raw;
  const type = request.headers["content-type"] ?? "";
  if (type.includes("yaml")) throw unsupportedMediaType(type);
  if (nestingDepth(raw) > MAX_JSON_DEPTH)
    throw badRequest(`the request body nests deeper than ${MAX_JSON_DEPTH} levels: json: exceeded max depth`);
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw badRequest(`the request body is not valid JSON: ${(error as Error).message}`);
  }
}

function requireObjectBody(body: unknown, kind: ResourceKind): KubeObject {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: body must be a JSON object`);
  const obj = body as KubeObject;
  if (obj.metadata === undefined) obj.metadata = {};
  if (obj.metadata === null || typeof obj.metadata !== "object")
    throw badRequest(`${kind.kind} in version "${kind.version}" cannot be handled as a ${kind.kind}: metadata must be an object`);
  if (obj.kind !== undefined && obj.kind !== kind.kind)
    throw badRequest(`the object provided is unrecognized (kind "${String(obj.kind)}" does not match ${kind.kind})`);
  return obj;
}

/** A Scale body: decoded as autoscaling/v1 Scale. */
export function decodeScale(kind: ResourceKind, body: unknown, validation: FieldValidation, reply: FastifyReply): Scale {
  const scaleKind = { ...kind, kind: "Scale", version: "v1" };
  return decodeBody(scaleKind, body, validation, reply, (obj) => decode(scaleSchema, obj)) as Scale;
}
