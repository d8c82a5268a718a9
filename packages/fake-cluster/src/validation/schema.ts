// What the API server's JSON decoder does before any validation: a value of the wrong JSON type is a 400 (Go's
// "json: cannot unmarshal ..."), a field the Go type does not have is dropped (a warning) or, with
// fieldValidation=Strict, a 400. Complex subtrees the fake never reads (probes, affinity, volumes, ...) are `any`:
// kept as given, not type-checked.

/** A field's wire type. Objects carry the Go struct name the decoder's messages use. */
export type Schema =
  | { t: "string" | "bool" | "int32" | "int64" | "float64" | "intOrString" | "quantity" | "any" | "bytes" }
  | { t: "object"; go: string; fields: Record<string, Schema> }
  | { t: "array"; items: Schema; go: string }
  | { t: "map"; values: Schema; go: string };

export const str: Schema = { t: "string" };
export const bool: Schema = { t: "bool" };
export const int32: Schema = { t: "int32" };
export const int64: Schema = { t: "int64" };
export const any: Schema = { t: "any" };
export const intOrString: Schema = { t: "intOrString" };
export const bytes: Schema = { t: "bytes" };
/** A struct with the given Go name and fields. */
export const struct = (go: string, fields: Record<string, Schema>): Schema => ({ t: "object", go, fields });
/** A list; `go` is how the decoder names it ("[]string"). */
export const list = (items: Schema, go = `[]${goName(items)}`): Schema => ({ t: "array", items, go });
/** A map with string keys. */
export const dict = (values: Schema, go = `map[string]${goName(values)}`): Schema => ({ t: "map", values, go });

function goName(schema: Schema): string {
  switch (schema.t) {
    case "object":
      return schema.go.includes(".") ? schema.go : `v1.${schema.go}`;
    case "array":
    case "map":
      return schema.go;
    case "intOrString":
      return "intstr.IntOrString";
    case "quantity":
      return "resource.Quantity";
    case "bytes":
      return "[]uint8";
    case "any":
      return "interface {}";
    default:
      return schema.t;
  }
}

/** A value the decoder cannot put into the Go type: the 400 message after "cannot be handled as a <Kind>: ". */
export class DecodeError extends Error {}

/** Result of decoding: the object with unknown fields removed, and their paths. */
export interface Decoded {
  value: unknown;
  unknownFields: string[];
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

// The real decoder gives up on nesting this deep (encoding/json's max depth); nothing legitimate comes close.
const MAX_DEPTH = 10000;

/** Decodes `value` as `schema`: throws DecodeError for a wrong type, drops (and reports) unknown fields. */
export function decode(schema: Schema, value: unknown): Decoded {
  const unknownFields: string[] = [];
  const walk = (s: Schema, v: unknown, path: string, goPath: string, owner: string, depth: number): unknown => {
    if (depth > MAX_DEPTH) throw new DecodeError("json: exceeded max depth");
    if (v === null) return undefined;
    const wrong = (shown = jsonType(v)) =>
      new DecodeError(`json: cannot unmarshal ${shown} into Go struct field ${owner}.${goPath} of type ${goName(s)}`);
    switch (s.t) {
      case "any":
        return v;
      case "string":
        if (typeof v !== "string") throw wrong();
        return v;
      case "bytes":
        if (typeof v !== "string") throw wrong();
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) {
          const at = [...v].findIndex((c) => !/[A-Za-z0-9+/=]/.test(c));
          throw new DecodeError(`illegal base64 data at input byte ${at >= 0 ? at : v.length - (v.length % 4)}`);
        }
        return v;
      case "bool":
        if (typeof v !== "boolean") throw wrong();
        return v;
      case "int32":
      case "int64":
      case "float64":
        if (typeof v !== "number") throw wrong();
        if (s.t !== "float64" && !Number.isInteger(v)) throw wrong(`number ${v}`);
        if (s.t === "int32" && (v > 2147483647 || v < -2147483648)) throw wrong(`number ${v}`);
        return v;
      case "intOrString":
      case "quantity":
        if (typeof v !== "string" && typeof v !== "number") throw wrong();
        return v;
      case "array": {
        if (!Array.isArray(v)) throw wrong();
        return v.map((item, i) => walk(s.items, item, `${path}[${i}]`, goPath, owner, depth + 1));
      }
      case "map": {
        if (typeof v !== "object" || Array.isArray(v)) throw wrong();
        const out: Record<string, unknown> = {};
        for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
          const decoded = walk(s.values, item, `${path}[${k}]`, goPath, owner, depth + 1);
          // A null map value decodes as the zero value.
          out[k] = decoded === undefined ? zeroOf(s.values) : decoded;
        }
        return out;
      }
      case "object": {
        if (typeof v !== "object" || Array.isArray(v)) throw wrong();
        const out: Record<string, unknown> = {};
        for (const [k, item] of Object.entries(v as Record<string, unknown>)) {
          const field = s.fields[k];
          const childPath = path ? `${path}.${k}` : k;
          if (!field) {
            unknownFields.push(childPath);
            continue;
          }
          const decoded = walk(field, item, childPath, goPath ? `${goPath}.${k}` : k, s.go, depth + 1);
          // Lists and maps are `omitempty` in the Go types: an empty one is not stored (`env: []` disappears).
          if (decoded !== undefined && !isEmptyCollection(field, decoded)) out[k] = decoded;
        }
        return out;
      }
    }
  };
  return { value: walk(schema, value, "", "", "", 0), unknownFields };
}

function zeroOf(schema: Schema): unknown {
  if (schema.t === "string" || schema.t === "bytes") return "";
  if (schema.t === "bool") return false;
  if (schema.t === "int32" || schema.t === "int64" || schema.t === "float64") return 0;
  return null;
}

function isEmptyCollection(schema: Schema, value: unknown): boolean {
  if (schema.t === "array") return (value as unknown[]).length === 0;
  if (schema.t === "map") return Object.keys(value as object).length === 0;
  return false;
}
