// Request bodies in Kubernetes' protobuf encoding (application/vnd.kubernetes.protobuf), read into the JSON object
// the API server would have decoded: client-go's typed clients send built-in kinds so, and refuse to fall back to
// JSON on a 415 (only CBOR falls back), so `kubectl create configmap` of a current kubectl needs it. The wire is
// "k8s\0" and a runtime.Unknown whose `raw` is the object's message; each field is read with the Go type's protobuf
// number and JSON name (generated/protobuf-schema.ts, from the types' struct tags), and what its JSON omits when
// empty is omitted, as encoding/json would. Only bodies are read: answers stay JSON, which such clients accept.
import { PROTOBUF_SCHEMA, type ProtobufField } from "./generated/protobuf-schema.js";

/** Why a body could not be read: the caller answers 400 (malformed) or 415 (a kind the schema lacks). */
export class ProtobufBodyError extends Error {
  constructor(
    message: string,
    readonly unsupportedKind = false,
  ) {
    super(message);
  }
}

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]); // "k8s\0"

/** One field as read off the wire: its number, wire type and payload (a varint, 8 or 4 bytes, or a slice). */
interface WireField {
  number: number;
  wire: number;
  varint?: bigint;
  bytes?: Buffer;
}

/** Splits a message into its fields, in wire order. */
function readFields(buf: Buffer): WireField[] {
  const fields: WireField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (pos >= buf.length) throw new ProtobufBodyError("unexpected end of a varint");
      const b = buf[pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return result;
      if (shift > 63n) throw new ProtobufBodyError("a varint longer than 10 bytes");
    }
  };
  const take = (n: number): Buffer => {
    if (n < 0 || pos + n > buf.length) throw new ProtobufBodyError("a field runs past the end of its message");
    const slice = buf.subarray(pos, pos + n);
    pos += n;
    return slice;
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const number = key >>> 3;
    const wire = key & 7;
    if (wire === 0) fields.push({ number, wire, varint: varint() });
    else if (wire === 1) fields.push({ number, wire, bytes: take(8) });
    else if (wire === 2) fields.push({ number, wire, bytes: take(Number(varint())) });
    else if (wire === 5) fields.push({ number, wire, bytes: take(4) });
    else throw new ProtobufBodyError(`unsupported wire type ${wire} (field ${number})`);
  }
  return fields;
}

const bytesOf = (f: WireField): Buffer => {
  if (f.bytes === undefined || f.wire !== 2) throw new ProtobufBodyError(`field ${f.number}: expected a length-delimited value`);
  return f.bytes;
};

/** A number: varints as int64 (int32's negatives are sign-extended), fixed64/fixed32 as floats. */
function numberOf(f: WireField, unsigned: boolean): number {
  if (f.varint !== undefined) return Number(unsigned ? BigInt.asUintN(64, f.varint) : BigInt.asIntN(64, f.varint));
  if (f.wire === 1) return f.bytes!.readDoubleLE(0);
  if (f.wire === 5) return f.bytes!.readFloatLE(0);
  throw new ProtobufBodyError(`field ${f.number}: expected a number`);
}

/** The fields of a special type's message by number (the last value of each wins, as in protobuf). */
function byNumber(buf: Buffer): Map<number, WireField> {
  return new Map(readFields(buf).map((f) => [f.number, f]));
}

/** RFC 3339 in UTC, as metav1.Time (seconds) and MicroTime (microseconds) write JSON. */
function timeText(buf: Buffer, micro: boolean): string | undefined {
  const parts = byNumber(buf);
  const seconds = parts.get(1) ? numberOf(parts.get(1)!, false) : 0;
  const nanos = parts.get(2) ? numberOf(parts.get(2)!, false) : 0;
  if (seconds === 0 && nanos === 0) return undefined; // the zero time: JSON null, which decodes as absent
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, "0")}Z` : `${base}Z`;
}

/** Go's time.Duration.String() ("1h2m3.5s", "150ms"), as metav1.Duration writes JSON. */
function durationText(nanos: number): string {
  if (nanos === 0) return "0s";
  const sign = nanos < 0 ? "-" : "";
  let n = Math.abs(nanos);
  if (n < 1e3) return `${sign}${n}ns`;
  if (n < 1e6) return `${sign}${trim(n / 1e3)}µs`;
  if (n < 1e9) return `${sign}${trim(n / 1e6)}ms`;
  let out = "";
  const hours = Math.floor(n / 3.6e12);
  if (hours > 0) out += `${hours}h`;
  n -= hours * 3.6e12;
  const minutes = Math.floor(n / 6e10);
  if (hours > 0 || minutes > 0) out += `${minutes}m`;
  n -= minutes * 6e10;
  return `${sign}${out}${trim(n / 1e9)}s`;
}
const trim = (x: number) => String(Number(x.toFixed(9)));

/** One value of kind `value` (a scalar, a special type or a message type) from its wire field. */
function readValue(value: string, f: WireField): unknown {
  switch (value) {
    case "string":
      return bytesOf(f).toString("utf8");
    case "bytes":
      return bytesOf(f).toString("base64");
    case "bool":
      return numberOf(f, true) !== 0;
    case "int":
    case "float":
      return numberOf(f, false);
    case "uint":
      return numberOf(f, true);
    case "time":
    case "microtime":
      return timeText(bytesOf(f), value === "microtime");
    case "duration": {
      const d = byNumber(bytesOf(f)).get(1);
      return durationText(d ? numberOf(d, false) : 0);
    }
    case "quantity": {
      const s = byNumber(bytesOf(f)).get(1);
      return s ? bytesOf(s).toString("utf8") : "";
    }
    case "intorstring": {
      const parts = byNumber(bytesOf(f));
      const type = parts.get(1) ? numberOf(parts.get(1)!, false) : 0;
      if (type === 1) return parts.get(3) ? bytesOf(parts.get(3)!).toString("utf8") : "";
      return parts.get(2) ? numberOf(parts.get(2)!, false) : 0;
    }
    case "rawjson": {
      const raw = byNumber(bytesOf(f)).get(1);
      if (!raw || bytesOf(raw).length === 0) return undefined;
      try {
        return JSON.parse(bytesOf(raw).toString("utf8"));
      } catch {
        throw new ProtobufBodyError(`field ${f.number}: embedded raw JSON that does not parse`);
      }
    }
    default:
      return messageOf(value, bytesOf(f));
  }
}

const SCALARS = new Set(["int", "uint", "bool", "float"]);

/** The values of a repeated field: one per wire field, or packed in one length-delimited field for numbers. */
function listValues(value: string, f: WireField): unknown[] {
  if (!SCALARS.has(value) || f.wire !== 2) return [readValue(value, f)];
  const buf = f.bytes!;
  if (value === "float") return Array.from({ length: Math.floor(buf.length / 8) }, (_, i) => buf.readDoubleLE(i * 8));
  const out: unknown[] = [];
  let pos = 0;
  while (pos < buf.length) {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (pos >= buf.length) throw new ProtobufBodyError("unexpected end of a packed varint");
      const b = buf[pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    out.push(readValue(value, { number: f.number, wire: 0, varint: result }));
  }
  return out;
}

/** Whether encoding/json's omitempty drops `v` (a zero scalar, an empty list or map; never a struct). */
const isEmpty = (v: unknown) => v === "" || v === 0 || v === false || (Array.isArray(v) && v.length === 0);

/** A message of Go type `type` as the JSON object encoding/json writes for it. */
function messageOf(type: string, buf: Buffer): Record<string, unknown> {
  const schema = PROTOBUF_SCHEMA.types[type];
  if (!schema) throw new ProtobufBodyError(`no schema for ${type}`);
  const byField = new Map<number, ProtobufField>(schema.map((field) => [field[0], field]));
  const out: Record<string, unknown> = {};
  for (const wire of readFields(buf)) {
    const field = byField.get(wire.number);
    if (!field) continue; // a field this version does not know: dropped, as the API server's decoder does
    const [, name, flags, value, mapValue] = field;
    if (flags.includes("l")) {
      const list = (out[name] as unknown[] | undefined) ?? [];
      list.push(...listValues(value, wire));
      out[name] = list;
    } else if (flags.includes("m")) {
      const entry = byNumber(bytesOf(wire));
      const key = entry.get(1) ? readValue(value, entry.get(1)!) : "";
      const mapped = entry.get(2);
      let v: unknown;
      if (mapValue!.startsWith("list:")) {
        const itemKind = mapValue!.slice(5);
        v = mapped ? readFields(bytesOf(mapped)).flatMap((item) => (item.number === 1 ? listValues(itemKind, item) : [])) : [];
      } else v = mapped ? readValue(mapValue!, mapped) : readValue(mapValue!, { number: 2, wire: 2, bytes: Buffer.alloc(0) });
      const map = (out[name] as Record<string, unknown> | undefined) ?? {};
      map[String(key)] = v;
      out[name] = map;
    } else {
      const v = readValue(value, wire);
      if (v === undefined) delete out[name];
      else out[name] = v;
    }
  }
  // omitempty drops a non-pointer zero value; a pointer present on the wire was set, even to its zero.
  for (const [, name, flags] of schema) {
    if (!(name in out)) continue;
    const v = out[name];
    if (flags.includes("o") && !flags.includes("p") && (isEmpty(v) || (flags.includes("m") && Object.keys(v as object).length === 0))) {
      delete out[name];
    }
  }
  return out;
}

/** Reads a protobuf request body into the object its JSON would be (apiVersion and kind included). */
export function decodeProtobufBody(body: Buffer): Record<string, unknown> {
  if (body.length < MAGIC.length || !body.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new ProtobufBodyError('the body does not start with the protobuf envelope\'s "k8s\\0"');
  }
  const unknown = byNumber(body.subarray(MAGIC.length));
  const typeMeta = unknown.get(1) ? byNumber(bytesOf(unknown.get(1)!)) : new Map<number, WireField>();
  const apiVersion = typeMeta.get(1) ? bytesOf(typeMeta.get(1)!).toString("utf8") : "";
  const kind = typeMeta.get(2) ? bytesOf(typeMeta.get(2)!).toString("utf8") : "";
  const encoding = unknown.get(3) ? bytesOf(unknown.get(3)!).toString("utf8") : "";
  if (encoding !== "") throw new ProtobufBodyError(`contentEncoding ${JSON.stringify(encoding)} is not read`);
  const type = PROTOBUF_SCHEMA.kinds[`${apiVersion}/${kind}`];
  if (!type)
    throw new ProtobufBodyError(
      `protobuf bodies of ${apiVersion} ${kind} are not read by the shiplog fake cluster; send application/json`,
      true,
    );
  const raw = unknown.get(2) ? bytesOf(unknown.get(2)!) : Buffer.alloc(0);
  return { apiVersion, kind, ...messageOf(type, raw) };
}
