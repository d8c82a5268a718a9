// The compact form of acknowledged state kept in the cluster, in two parts:
// - `text`: gzip of a column layout: the environments once, then one column per field with a line per record,
//   records sorted by environment and deployment name. Columns of similar values compress far better than rows
//   (10,000 records: ~55 KB), and stay readable (`base64 -d | gunzip`).
// - `digests`: the raw 32 bytes of each distinct sha256 digest (v2: a dictionary, records refer to it by index in the
//   `digest_ref` column; v1, still read: one per record in record order). Random data gzip cannot shrink, and hex
//   would double it: with every record on its own digest they are most of the size (320 KB per 10,000); records
//   sharing images (sidecars, one app in many namespaces) share one.
// Pure: no I/O.
import { ShiplogError } from "@shiplog/client";
import { gunzipSync, gzipSync } from "node:zlib";
import type { ClusterDeploymentEntry } from "@shiplog/client";
import type { AcknowledgedRecord } from "./acknowledged-state.js";
import { recordKey, type RecordGroup } from "./pod-records.js";

/** The first line of the encoded text; a different one is refused on decode. */
export const ACKNOWLEDGED_STATE_FORMAT = "shiplog-acknowledged v2";
/** The format before the digest dictionary: still read. */
const FORMAT_V1 = "shiplog-acknowledged v1";

/** Encoded state that cannot be read (corrupt, or written by an incompatible version). */
export class AcknowledgedStateFormatError extends ShiplogError {
  constructor(message: string) {
    super("acknowledged_state_unreadable", message);
  }
}

// Fields are tab-separated and records newline-separated: escape both (and the escape character). An empty
// field means "absent"; a present empty string is written as `\e` so the round trip is exact.
function escapeField(value: string | undefined): string {
  if (value === undefined) return "";
  if (value === "") return "\\e";
  return value.replace(/[\\\t\n\r]/g, (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c]!);
}

function unescapeField(text: string): string | undefined {
  if (text === "") return undefined;
  if (text === "\\e") return "";
  return text.replace(/\\(.)/g, (_, c: string) => ({ "\\": "\\", t: "\t", n: "\n", r: "\r" })[c] ?? c);
}

const DIGEST = /^sha256:([a-f0-9]{64})$/;
const DIGEST_BYTES = 32;
/** Column order in the text part. */
const COLUMNS_V1 = ["group", "deployment_name", "name", "version", "github_repository", "tags", "runtime_risks", "digest"] as const;
const COLUMNS = [...COLUMNS_V1, "digest_ref"] as const;

/** Encoded acknowledged state. */
export interface EncodedAcknowledgedState {
  /** gzip of the text columns. */
  text: Buffer;
  /** 32 bytes per distinct sha256 digest, referred to by index. */
  digests: Buffer;
  records: number;
}

/** Encodes deployed acknowledged records compactly (decommissioned ones are left out: nothing more to do for them). */
export function encodeAcknowledgedState(records: Iterable<AcknowledgedRecord>): EncodedAcknowledgedState {
  const groupIds = new Map<string, number>();
  const groupLines: string[] = [];
  const rows: { group: number; sortKey: string; record: AcknowledgedRecord }[] = [];
  for (const record of records) {
    if ((record.entry.status ?? "deployed") !== "deployed") continue;
    const groupLine = `${escapeField(record.group.logicalEnvironment)}\t${escapeField(record.group.physicalEnvironment)}`;
    let id = groupIds.get(groupLine);
    if (id === undefined) {
      groupIds.set(groupLine, (id = groupLines.length));
      groupLines.push(groupLine);
    }
    rows.push({ group: id, sortKey: `${groupLine}\n${record.entry.deployment_name}`, record });
  }
  rows.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  const digestIndex = new Map<string, number>();
  const digestList: string[] = [];
  const columns: string[][] = COLUMNS.map(() => []);
  rows.forEach(({ group, record: { entry } }, i) => {
    const match = DIGEST.exec(entry.digest);
    // A digest seen first here takes the next dictionary slot and writes nothing; a repeat names its slot.
    let ref = "";
    if (match) {
      const index = digestIndex.get(match[1]!);
      if (index === undefined) digestIndex.set(match[1]!, digestList.push(match[1]!) - 1);
      else ref = index.toString(36);
    }
    const values = [
      String(group),
      escapeField(entry.deployment_name),
      escapeField(entry.name),
      escapeField(entry.version),
      escapeField(entry.github_repository),
      entry.tags === undefined ? "" : escapeField(JSON.stringify(entry.tags)),
      entry.runtime_risks === undefined ? "" : escapeField(JSON.stringify(entry.runtime_risks)),
      // Only a digest that is not sha256 hex (never accepted by the service, kept for exactness) is spelled out.
      match ? "" : escapeField(entry.digest),
      ref,
    ];
    values.forEach((value, c) => columns[c]!.push(value));
  });
  const digests = Buffer.alloc(digestList.length * DIGEST_BYTES);
  digestList.forEach((hex, i) => digests.write(hex, i * DIGEST_BYTES, "hex"));
  const lines = [ACKNOWLEDGED_STATE_FORMAT, `records ${rows.length}`, `environments ${groupLines.length}`, ...groupLines];
  // No spread: 150,000 arguments overflow the call stack.
  COLUMNS.forEach((name, c) => {
    lines.push(`column ${name}`);
    for (const value of columns[c]!) lines.push(value);
  });
  return { text: gzipSync(`${lines.join("\n")}\n`, { level: 9 }), digests, records: rows.length };
}

/** Decodes what encodeAcknowledgedState wrote; throws AcknowledgedStateFormatError when it cannot. */
export function decodeAcknowledgedState(encoded: { text: Buffer; digests: Buffer }): AcknowledgedRecord[] {
  let text: string;
  try {
    text = gunzipSync(encoded.text).toString("utf8");
  } catch (error) {
    throw new AcknowledgedStateFormatError(`acknowledged state is not gzip data: ${(error as Error).message}`);
  }
  const lines = text.split("\n");
  const v1 = lines[0] === FORMAT_V1;
  const names = v1 ? COLUMNS_V1 : COLUMNS;
  if (lines[0] !== ACKNOWLEDGED_STATE_FORMAT && !v1) {
    throw new AcknowledgedStateFormatError(`acknowledged state has format ${JSON.stringify(lines[0]?.slice(0, 40))}, expected ${JSON.stringify(ACKNOWLEDGED_STATE_FORMAT)}`);
  }
  const count = Number(/^records (\d+)$/.exec(lines[1] ?? "")?.[1] ?? NaN);
  const groupCount = Number(/^environments (\d+)$/.exec(lines[2] ?? "")?.[1] ?? NaN);
  if (!Number.isInteger(count) || !Number.isInteger(groupCount)) throw new AcknowledgedStateFormatError("acknowledged state: missing record or environment count");
  if (v1 ? encoded.digests.length !== count * DIGEST_BYTES : encoded.digests.length % DIGEST_BYTES !== 0) {
    throw new AcknowledgedStateFormatError(`acknowledged state: ${encoded.digests.length} digest bytes for ${count} records`);
  }
  if (lines.length < 3 + groupCount + names.length * (count + 1)) throw new AcknowledgedStateFormatError("acknowledged state is truncated");
  const groups: RecordGroup[] = lines.slice(3, 3 + groupCount).map((line, i) => {
    const [logical, physical, extra] = line.split("\t").map((f) => unescapeField(f));
    if (logical === undefined || extra !== undefined) throw new AcknowledgedStateFormatError(`environment ${i}: malformed`);
    return physical === undefined ? { logicalEnvironment: logical } : { logicalEnvironment: logical, physicalEnvironment: physical };
  });
  const columns = new Map<string, string[]>();
  let at = 3 + groupCount;
  for (const name of names) {
    if (lines[at] !== `column ${name}`) throw new AcknowledgedStateFormatError(`acknowledged state: expected column ${name} at line ${at + 1}`);
    columns.set(name, lines.slice(at + 1, at + 1 + count));
    at += count + 1;
  }
  const column = (name: (typeof COLUMNS)[number], i: number) => unescapeField(columns.get(name)![i]!);
  const out: AcknowledgedRecord[] = [];
  let nextDigest = 0;
  for (let i = 0; i < count; i++) {
    const group = groups[Number(columns.get("group")![i])];
    const deploymentName = column("deployment_name", i);
    const name = column("name", i);
    if (!group || deploymentName === undefined || name === undefined) throw new AcknowledgedStateFormatError(`record ${i}: environment, deployment name and name are required`);
    const spelled = column("digest", i);
    const refText = v1 ? "" : (columns.get("digest_ref")![i] ?? "");
    const ref = v1 ? i : spelled !== undefined ? -1 : refText === "" ? nextDigest++ : Number.parseInt(refText, 36);
    if (spelled === undefined && !(ref >= 0 && (ref + 1) * DIGEST_BYTES <= encoded.digests.length)) {
      throw new AcknowledgedStateFormatError(`record ${i}: no digest`);
    }
    const digest = spelled ?? `sha256:${encoded.digests.toString("hex", ref * DIGEST_BYTES, (ref + 1) * DIGEST_BYTES)}`;
    const entry: ClusterDeploymentEntry = { name, digest: digest as ClusterDeploymentEntry["digest"], status: "deployed", deployment_name: deploymentName };
    const version = column("version", i);
    const repository = column("github_repository", i);
    const tags = column("tags", i);
    const risks = column("runtime_risks", i);
    if (version !== undefined) entry.version = version;
    if (repository !== undefined) entry.github_repository = repository;
    try {
      if (tags !== undefined) entry.tags = JSON.parse(tags) as Record<string, string>;
      if (risks !== undefined) entry.runtime_risks = JSON.parse(risks) as ClusterDeploymentEntry["runtime_risks"];
    } catch {
      throw new AcknowledgedStateFormatError(`record ${i}: tags or runtime risks are not JSON`);
    }
    out.push({ key: recordKey(group, deploymentName), group, entry });
  }
  return out;
}
