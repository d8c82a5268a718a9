// The parameters of every endpoint of the client's registry beside the official OpenAPI description (what octokit's
// types are generated from): the client takes every parameter octokit takes, by the same name, requires what the
// service requires, and allows the same enum values, except where the spec (which wins) or the service's documented
// behaviour says otherwise (DIVERGENCES, each with its reason). It also refuses what the service refuses: a required
// parameter left out, a value outside an enum. `per_page` and `page` are the list methods' options, not parameters.
import { describe, expect, it } from "vitest";
import { endpointList } from "@shiplog/client/endpoints";
import { operation } from "./support/openapi-contract.js";

/** What one side says of one parameter: `deployments[].digest`, `tagger.email`, `permissions.*` (a map's values). */
interface Parameter {
  required: boolean;
  values?: readonly string[];
  types: readonly string[];
}

/** Where the client differs from the OpenAPI on purpose: `operation id` → parameter → why. */
const DIVERGENCES: Record<string, Record<string, string>> = {
  "orgs/create-artifact-storage-record": {
    status: "spec 2.3 and 4.1 name `inactive` among the values seen; the OpenAPI enum lacks it (the spec wins)",
  },
  "migrations/update-import": {
    human_name: "a project choice is sent back whole, as the OpenAPI's own request example does (unknown fields are ignored)",
  },
};

type JsonSchema = Record<string, unknown> & {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

const variants = (s: JsonSchema): JsonSchema[] => s.oneOf ?? s.anyOf ?? [s];
const typesOf = (s: JsonSchema): string[] =>
  s.type !== undefined
    ? [s.type].flat()
    : s.enum
      ? [...new Set(s.enum.map((v) => typeof v))]
      : variants(s)
          .filter((v) => v !== s)
          .flatMap(typesOf);
const valuesOf = (s: JsonSchema): string[] | undefined => {
  const all = variants(s).flatMap((v) => (v.enum ?? []).map(String));
  return all.length > 0 ? all : undefined;
};

/** Every field of a body schema, nested objects and array items included, by path. */
function fieldsOf(schema: JsonSchema, prefix = "", out = new Map<string, Parameter>()): Map<string, Parameter> {
  for (const shape of variants(schema)) {
    for (const [name, field] of Object.entries(shape.properties ?? {})) {
      const path = `${prefix}${name}`;
      out.set(path, { required: (shape.required ?? []).includes(name), values: valuesOf(field), types: typesOf(field) });
      const inner = field.type === "array" ? field.items : field;
      const innerPath = `${path}${field.type === "array" ? "[]" : ""}`;
      if (inner && variants(inner).some((v) => v.properties)) fieldsOf(inner, `${innerPath}.`, out);
      if (inner && typeof inner.additionalProperties === "object") {
        out.set(`${innerPath}.*`, {
          required: false,
          values: valuesOf(inner.additionalProperties),
          types: typesOf(inner.additionalProperties),
        });
      }
    }
  }
  return out;
}

/** The official parameters of an operation: path and query parameters, then the JSON body's fields. */
function officialParameters(method: string, route: string, paged: boolean): Map<string, Parameter> {
  const op = operation(method, route) as ReturnType<typeof operation> & { requestBody?: { required?: boolean } };
  const out = new Map<string, Parameter>();
  for (const p of (op.parameters ?? []) as { name: string; required?: boolean; schema: JsonSchema }[]) {
    if (paged && (p.name === "per_page" || p.name === "page")) continue;
    out.set(p.name, { required: Boolean(p.required), values: valuesOf(p.schema), types: typesOf(p.schema) });
  }
  const body = op.requestBody?.content?.["application/json"]?.schema as JsonSchema | undefined;
  if (body) {
    for (const [path, field] of fieldsOf(body)) {
      // A body the operation does not require makes none of its top-level fields required.
      const required = field.required && (path.includes(".") || Boolean(op.requestBody?.required));
      out.set(path, { ...field, required });
    }
  }
  return out;
}

type ParamsSchema = ReturnType<typeof endpointList>[number]["params"];

/** The client's parameters of an endpoint, from its schema as a caller writes the input. */
function clientParameters(schema: ParamsSchema): Map<string, Parameter> {
  return fieldsOf(schema.toJSONSchema({ io: "input", unrepresentable: "any" }) as JsonSchema);
}

/** Whether the client's types take every type the official description allows (an integer is a number). */
function takesTypes(client: readonly string[], official: readonly string[]): boolean {
  return official.every(
    (t) => client.includes(t) || (t === "integer" && client.includes("number")) || (t === "number" && client.includes("integer")),
  );
}

/** The paths of the issues the client's schema finds in `input` (`deployments.0.digest`). */
function issuePaths(schema: ParamsSchema, input: unknown): string[] {
  return (schema.safeParse(input).error?.issues ?? []).map((i) => i.path.join("."));
}

describe("the divergences", () => {
  it("each one is still a real difference (an entry that no longer differs is removed)", () => {
    for (const [operationId, names] of Object.entries(DIVERGENCES)) {
      const endpoint = endpointList().find((e) => e.operationId === operationId)!;
      const official = officialParameters(endpoint.method, endpoint.route, endpoint.pages !== undefined);
      const client = clientParameters(endpoint.params);
      for (const name of Object.keys(names)) {
        expect(JSON.stringify(client.get(name)), `${operationId} ${name}`).not.toBe(JSON.stringify(official.get(name)));
      }
    }
  });
});

for (const endpoint of endpointList()) {
  const { operationId, method, route } = endpoint;
  const official = officialParameters(method, route, endpoint.pages !== undefined);
  const client = clientParameters(endpoint.params);
  const divergent = DIVERGENCES[operationId] ?? {};

  describe(`${operationId} (${method} ${route})`, () => {
    it("takes every parameter the official description names, by its name", () => {
      const missing = [...official.keys()].filter((name) => !client.has(name) && !client.has(name.replace(/\.[^.]+$/, ".*")));
      expect(missing).toEqual([]);
    });

    it("takes no parameter the official description lacks", () => {
      const extra = [...client.keys()].filter((name) => !official.has(name) && !(name in divergent) && !name.endsWith(".*"));
      expect(extra).toEqual([]);
    });

    it("requires what the official description requires, and only that", () => {
      const differ = [...official].filter(
        ([name, p]) => client.has(name) && client.get(name)!.required !== p.required && !(name in divergent),
      );
      expect(differ.map(([name, p]) => `${name}: ${p.required ? "required" : "optional"}`)).toEqual([]);
    });

    it("takes the official types and enum values (a map's values: each field's values)", () => {
      const differ: string[] = [];
      for (const [name, p] of official) {
        const ours = client.get(name) ?? client.get(name.replace(/\.[^.]+$/, ".*"));
        if (!ours || name in divergent) continue;
        if (!takesTypes(ours.types, p.types)) differ.push(`${name}: types ${ours.types.join("|")}, official ${p.types.join("|")}`);
        const mapValue = !client.has(name);
        const same = mapValue
          ? (p.values?.every((v) => ours.values?.includes(v)) ?? true)
          : JSON.stringify([...(p.values ?? [])].sort()) === JSON.stringify([...(ours.values ?? [])].sort());
        if (!same) differ.push(`${name}: values ${ours.values?.join(", ") ?? "any"}, official ${p.values?.join(", ") ?? "any"}`);
      }
      expect(differ).toEqual([]);
    });

    const requiredTopLevel = [...official].filter(([name, p]) => p.required && !name.includes("."));
    const enums = [...official].filter(([name, p]) => p.values && !name.includes(".") && !(name in divergent));
    if (requiredTopLevel.length + enums.length > 0) {
      it("refuses what the service refuses: a required parameter left out, a value outside an enum", () => {
        for (const [name] of requiredTopLevel) expect(issuePaths(endpoint.params, {}), `${name} left out`).toContain(name);
        for (const [name] of enums) expect(issuePaths(endpoint.params, { [name]: "not-a-value" }), `${name}: not-a-value`).toContain(name);
      });
    }
  });
}
