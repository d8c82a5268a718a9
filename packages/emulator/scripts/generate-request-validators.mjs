#!/usr/bin/env node
// Compiles the official OpenAPI request schemas of the emulator's operations (npm @octokit/openapi,
// generated/api.github.com.deref.json) into ajv standalone validators, written to
// src/generated/request-validators.ts. The emulator ships that module, never the 70 MB description.
// The operations are the endpoints of the client's registry (@shiplog/client/endpoints, so the client is built
// first); only their list comes from there: the schemas are the official ones, so the emulator stays an
// independent check of the client. Each registry entry's operation id must be the official one.
//
//   node packages/emulator/scripts/generate-request-validators.mjs          write the module
//   node packages/emulator/scripts/generate-request-validators.mjs --check  exit 1 when it is stale
//
// Spec overrides (the spec wins over the OpenAPI description) live in spec-overrides.mjs; each is listed in
// the emulator README.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import standaloneCode from "ajv/dist/standalone/index.js";
import { endpointList } from "@shiplog/client/endpoints";
import { applySpecOverrides, serviceNames } from "./spec-overrides.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const target = join(here, "..", "src", "generated", "request-validators.ts");
const require = createRequire(join(here, "..", "..", "..", "package.json"));

/** An RFC 3339 date-time, the format the OpenAPI gives timestamps. */
const DATE_TIME = /^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(?:\.\d+)?(?:[Zz]|[+-]\d\d:?\d\d)$/;

/** Every operation the emulator serves, as `METHOD /openapi/path` with the registry's operation id. */
export const OPERATIONS = endpointList().map(({ method, route, operationId }) => ({ key: `${method} ${route}`, operationId }));

/** The request schemas of one operation: its parameters (path and query, one object) and its body. */
export function operationSchemas(description, key, operationId) {
  const [method, path] = key.split(" ");
  const operation = description.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`${key}: not in the OpenAPI description`);
  if (operationId !== undefined && operation.operationId !== operationId) {
    throw new Error(`${key}: the registry names it ${operationId}, the OpenAPI description ${operation.operationId}`);
  }
  const properties = {};
  const required = [];
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== "path" && parameter.in !== "query") continue;
    properties[parameter.name] = stripDocs(parameter.schema);
    if (parameter.required) required.push(parameter.name);
  }
  const params = { type: "object", properties, required };
  const content = operation.requestBody?.content?.["application/json"];
  const body = content ? serviceNames(lenient(stripDocs(content.schema))) : undefined;
  return applySpecOverrides(key, {
    operationId: operation.operationId,
    params,
    body,
    bodyRequired: operation.requestBody?.required === true,
  });
}

/** Drops what does not validate (descriptions, examples) so the generated code stays small. */
function stripDocs(schema) {
  if (Array.isArray(schema)) return schema.map(stripDocs);
  if (!schema || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (["description", "example", "examples", "title", "x-multi-segment", "externalDocs"].includes(key)) continue;
    out[key] = key === "properties" ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, stripDocs(v)])) : stripDocs(value);
  }
  return out;
}

/** The service ignores unknown body parameters: `additionalProperties: false` is not enforced on requests. */
function lenient(schema) {
  if (Array.isArray(schema)) return schema.map(lenient);
  if (!schema || typeof schema !== "object") return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "additionalProperties" && value === false) continue;
    out[key] = key === "properties" ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, lenient(v)])) : lenient(value);
  }
  return out;
}

function compile(schemas, coerce) {
  const ajv = new Ajv({
    code: { source: true, esm: true },
    allErrors: true,
    strict: false,
    coerceTypes: coerce,
    useDefaults: false,
    formats: { "date-time": DATE_TIME, uri: true, email: true, uuid: true },
  });
  const refs = {};
  for (const [name, schema] of Object.entries(schemas)) {
    ajv.addSchema(schema, name);
    refs[name] = name;
  }
  return standaloneCode(ajv, refs);
}

/** ajv's standalone code requires its runtime helpers; the emulator carries its own copy instead. */
function selfContained(code) {
  return code
    .replace(/const (\w+) = require\("ajv\/dist\/runtime\/ucs2length"\)\.default;/g, "const $1 = ucs2length;")
    .replace(/const (\w+) = require\("ajv\/dist\/runtime\/equal"\)\.default;/g, "const $1 = deepEqual;");
}

export function generate() {
  const description = JSON.parse(readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.deref.json"), "utf8"));
  const version = JSON.parse(readFileSync(require.resolve("@octokit/openapi/package.json"), "utf8")).version;
  const params = {};
  const bodies = {};
  const table = [];
  for (const [index, { key, operationId }] of OPERATIONS.entries()) {
    const schemas = operationSchemas(description, key, operationId);
    params[`p${index}`] = schemas.params;
    if (schemas.body) bodies[`b${index}`] = schemas.body;
    table.push(
      `  ${JSON.stringify(key)}: { operationId: ${JSON.stringify(schemas.operationId)}, params: params.p${index}, ` +
        `body: ${schemas.body ? `bodies.b${index}` : "undefined"}, bodyRequired: ${schemas.bodyRequired} },`,
    );
  }
  const paramsCode = selfContained(compile(params, true));
  const bodiesCode = selfContained(compile(bodies, false));
  if (/require\(/.test(paramsCode + bodiesCode)) throw new Error("generated validators still require ajv at run time");
  const text = `// GENERATED by packages/emulator/scripts/generate-request-validators.mjs from @octokit/openapi ${version}
// (generated/api.github.com.deref.json, with the spec overrides of scripts/spec-overrides.mjs). Do not edit.
// @ts-nocheck
/* eslint-disable */
import { ucs2length, deepEqual } from "../request-validation-runtime.js";

const params = (() => {
${indentModule(paramsCode)}
})();

const bodies = (() => {
${indentModule(bodiesCode)}
})();

/** A compiled validator: true or false, with ajv's \`errors\` on the function after a false. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }[] | null;
}

export interface OperationValidators {
  operationId: string;
  /** Path and query parameters as one object (strings coerced as the schema's types say). */
  params: CompiledValidator;
  body: CompiledValidator | undefined;
  bodyRequired: boolean;
}

/** The operations' validators by \`METHOD /openapi/path\`. */
export const OPERATION_VALIDATORS: Record<string, OperationValidators> = {
${table.join("\n")}
};
`;
  return text;
}

/** Turns the module's \`export const x = ...\` lines into an object the IIFE returns. */
function indentModule(code) {
  const names = [];
  const body = code
    .replace(/^"use strict";/, "")
    .replace(/export const (\w+) = (\w+);/g, (_m, name, fn) => {
      names.push([name, fn]);
      return "";
    })
    .replace(/export default \w+;/g, "");
  return `${body}\nreturn { ${names.map(([n, f]) => `${n}: ${f}`).join(", ")} };`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = generate();
  if (process.argv.includes("--check")) {
    const current = readFileSync(target, "utf8");
    if (current !== text) {
      console.error(`${target} is stale: run node packages/emulator/scripts/generate-request-validators.mjs`);
      process.exit(1);
    }
  } else {
    writeFileSync(target, text);
    console.log(`wrote ${target} (${text.length} characters)`);
  }
}
