// The compact form of a set of records kept in the cluster (the acknowledged records of a state shard, the in-flight
// set, a journal segment's changes), in two parts:
// - `text`: gzip of a column layout: the environments once, then one column per field with a line per record,
//   records sorted by environment and deployment name. Columns of similar values compress far better than rows
//   (10,000 records: ~55 KB), and stay readable (`base64 -d | gunzip`).
// - `digests`: the raw 32 bytes of each distinct sha256 digest (v2 and later: a dictionary, records refer to it by
//   index in the `digest_ref` column; v1, still read: one per record in record order). Random data gzip cannot
//   shrink, and hex would double it: with every record on its own digest they are most of the size (320 KB per
//   10,000); records sharing images (sidecars, one app in many namespaces) share one.
// v3 adds removals (a journal segment says "this key is gone"): a row with no artifact name and `-` as digest_ref.
// v4 adds settlements (a journal segment says "the service accepted this key's in-flight entry": the entry moves to
// the acknowledged records without being written a second time): a row with no artifact name and `+` as digest_ref.
// A set without settlements is written as v3, so shards (which never hold settlements) stay readable by the previous
// version; a journal with settlements is folded into the shards on a graceful shutdown for the same reason.
// The encoding is canonical (rows, environments and tags in one order), and `checksum` hashes the uncompressed form,
// so the same set gives the same checksum whatever order it was built in and whichever zlib compressed it.
// Pure: no I/O.
import { ShiplogError } from "@shiplog/client";
import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import type { ClusterDeploymentEntry } from "@shiplog/client";
import type { AcknowledgedRecord } from "./acknowledged-state.js";
import { recordKey, type RecordGroup } from "../mapping/pod-records.js";

/** The first line of the encoded text of a set with settlements; a format not listed here is refused on decode. */
export const ACKNOWLEDGED_STATE_FORMAT = "shiplog-acknowledged v4";
/** Before settlements (still read, and still written for a set without them). */
const FORMAT_V3 = "shiplog-acknowledged v3";
/** Before removals (still read). */
const FORMAT_V2 = "shiplog-acknowledged v2";
/** Before the digest dictionary (still read). */
const FORMAT_V1 = "shiplog-acknowledged v1";
/** digest_ref of a removal: no digest. */
const REMOVED = "-";
/** digest_ref of a settlement: the in-flight entry's digest. */
const SETTLED = "+";

/** Encoded state that cannot be read (corrupt, or written by an incompatible version). */
export class AcknowledgedStateFormatError extends ShiplogError {
  constructor(message: string) {
    super("acknowledged_state_unreadable", message);
  }
}

// Fields are tab-separated and records newline-separated: escape both (and the escape character). An empty
// field means "absent"; a present empty string is written as `\e` so the round trip is exact.
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };
function escapeField(value: string | undefined): string {
  if (value === undefined) return "";
  if (value === "") return "\\e";
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
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
  /** Records (removals not counted). */
  records: number;
  /** sha256 (hex) of the uncompressed text and the digests: the same for the same set, however compressed. */
  checksum: string;
}

/** A record set as decoded: the records, and the keys a journal segment removes or settles. */
export interface DecodedRecordSet {
  records: AcknowledgedRecord[];
  removed: string[];
  /** Keys whose in-flight entry the service accepted (in a segment's in-flight set). */
  settled: string[];
  checksum: string;
}

/** The environments and deployment name a record key was made of (the inverse of pod-records' recordKey). */
function keyParts(key: string): { group: RecordGroup; deploymentName: string } {
  const [logical = "", physical = "", ...name] = key.split("\u0000");
  return {
    group: physical === "" ? { logicalEnvironment: logical } : { logicalEnvironment: logical, physicalEnvironment: physical },
    deploymentName: name.join("\u0000"),
  };
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Tags in key order, so equal tags encode equally. */
function canonicalTags(tags: Record<string, string>): string {
  const keys = Object.keys(tags);
  for (let i = 1; i < keys.length; i++)
    if (keys[i - 1]! > keys[i]!) return JSON.stringify(Object.fromEntries(Object.entries(tags).sort(([a], [b]) => byText(a, b))));
  return JSON.stringify(tags);
}

/** What a row holds: the record, or the digest_ref of a row without one (a removal or a settlement). */
type RowValue = ClusterDeploymentEntry | typeof REMOVED | typeof SETTLED;

/**
 * Encodes deployed records compactly (decommissioned ones are left out: nothing more to do for them), and the keys
 * of records removed and of in-flight entries settled (a journal segment's removals and settlements).
 */
export function encodeAcknowledgedState(
  records: Iterable<AcknowledgedRecord>,
  removedKeys: Iterable<string> = [],
  settledKeys: Iterable<string> = [],
): EncodedAcknowledgedState {
  // Rows by environments, then by deployment name (unique in a set). A compaction encodes every record of a shard,
  // with the heap near its cap at 150,000 pods: nothing is allocated per row that the text does not need.
  const byGroup = new Map<string, Map<string, RowValue>>();
  let lastGroup: RecordGroup | undefined;
  let lastRows: Map<string, RowValue> | undefined;
  const add = (group: RecordGroup, deploymentName: string, value: RowValue) => {
    if (group !== lastGroup) {
      const line = `${escapeField(group.logicalEnvironment)}\t${escapeField(group.physicalEnvironment)}`;
      lastRows = byGroup.get(line) ?? byGroup.set(line, new Map()).get(line)!;
      lastGroup = group;
    }
    lastRows!.set(deploymentName, value);
  };
  let count = 0;
  for (const record of records) {
    if ((record.entry.status ?? "deployed") !== "deployed") continue;
    add(record.group, record.entry.deployment_name, record.entry);
    count += 1;
  }
  let settlements = false;
  for (const [keys, marker] of [
    [removedKeys, REMOVED],
    [settledKeys, SETTLED],
  ] as const) {
    for (const key of keys) {
      const { group, deploymentName } = keyParts(key);
      add(group, deploymentName, marker);
      settlements ||= marker === SETTLED;
    }
  }
  // Sorted as the text `environments \n name` sorts (an environment line holds no raw newline), by V8's own string
  // sort: it compares UTF-16 code units, as `<` does, without a call per comparison.
  const groupLines = [...byGroup.keys()]
    .map((line) => `${line}\n`)
    .sort()
    .map((line) => line.slice(0, -1));
  const digestIndex = new Map<string, number>();
  const digestList: string[] = [];
  const columns: string[][] = COLUMNS.map(() => []);
  const [groupColumn, nameColumn, artifactColumn, versionColumn, repositoryColumn, tagsColumn, risksColumn, digestColumn, refColumn] =
    columns as [string[], string[], string[], string[], string[], string[], string[], string[], string[]];
  for (const [id, line] of groupLines.entries()) {
    const rows = byGroup.get(line)!;
    const groupId = String(id);
    for (const deploymentName of [...rows.keys()].sort()) {
      const value = rows.get(deploymentName)!;
      groupColumn.push(groupId);
      nameColumn.push(escapeField(deploymentName));
      if (typeof value === "string") {
        for (const column of [artifactColumn, versionColumn, repositoryColumn, tagsColumn, risksColumn, digestColumn]) column.push("");
        refColumn.push(value);
        continue;
      }
      const entry = value;
      const match = DIGEST.exec(entry.digest);
      // A digest seen first here takes the next dictionary slot and writes nothing; a repeat names its slot.
      let ref = "";
      if (match) {
        const index = digestIndex.get(match[1]!);
        if (index === undefined) digestIndex.set(match[1]!, digestList.push(match[1]!) - 1);
        else ref = index.toString(36);
      }
      artifactColumn.push(escapeField(entry.name));
      versionColumn.push(escapeField(entry.version));
      repositoryColumn.push(escapeField(entry.github_repository));
      tagsColumn.push(entry.tags === undefined ? "" : escapeField(canonicalTags(entry.tags)));
      risksColumn.push(entry.runtime_risks === undefined ? "" : escapeField(JSON.stringify([...entry.runtime_risks].sort())));
      // Only a digest that is not sha256 hex (never accepted by the service, kept for exactness) is spelled out.
      digestColumn.push(match ? "" : escapeField(entry.digest));
      refColumn.push(ref);
    }
  }
  const digests = Buffer.alloc(digestList.length * DIGEST_BYTES);
  for (const [i, hex] of digestList.entries()) digests.write(hex, i * DIGEST_BYTES, "hex");
  const format = settlements ? ACKNOWLEDGED_STATE_FORMAT : FORMAT_V3;
  const rowCount = groupColumn.length;
  const lines = [format, `records ${rowCount}`, `environments ${groupLines.length}`, ...groupLines];
  // A column's values joined at once (no spread: 150,000 arguments overflow the call stack).
  COLUMNS.forEach((name, c) => {
    lines.push(`column ${name}`);
    if (rowCount > 0) lines.push(columns[c]!.join("\n"));
  });
  const text = Buffer.from(`${lines.join("\n")}\n`, "utf8");
  // zlib's default level: level 9 took four times as long for 8% less text (and the digests are most of the bytes).
  return { text: gzipSync(text), digests, records: count, checksum: checksumOf(text, digests) };
}

function checksumOf(text: Buffer, digests: Buffer): string {
  return createHash("sha256").update(text).update(digests).digest("hex");
}

/** Decodes records written by encodeAcknowledgedState (any format); throws AcknowledgedStateFormatError when it cannot. */
export function decodeAcknowledgedState(encoded: { text: Buffer; digests: Buffer }): AcknowledgedRecord[] {
  const decoded = decodeRecordSet(encoded);
  if (decoded.removed.length + decoded.settled.length > 0)
    throw new AcknowledgedStateFormatError(
      `acknowledged state: ${decoded.removed.length + decoded.settled.length} removals or settlements where records were expected`,
    );
  return decoded.records;
}

/** Decodes what encodeAcknowledgedState wrote, removals included; throws AcknowledgedStateFormatError when it cannot. */
export function decodeRecordSet(encoded: { text: Buffer; digests: Buffer }): DecodedRecordSet {
  let raw: Buffer;
  try {
    raw = gunzipSync(encoded.text);
  } catch (error) {
    throw new AcknowledgedStateFormatError(`acknowledged state is not gzip data: ${(error as Error).message}`);
  }
  const lines = raw.toString("utf8").split("\n");
  const v1 = lines[0] === FORMAT_V1;
  const names = v1 ? COLUMNS_V1 : COLUMNS;
  if (lines[0] !== ACKNOWLEDGED_STATE_FORMAT && lines[0] !== FORMAT_V3 && lines[0] !== FORMAT_V2 && !v1) {
    throw new AcknowledgedStateFormatError(
      `acknowledged state has format ${JSON.stringify(lines[0]?.slice(0, 40))}, expected ${JSON.stringify(ACKNOWLEDGED_STATE_FORMAT)}`,
    );
  }
  const count = Number(/^records (\d+)$/.exec(lines[1] ?? "")?.[1] ?? NaN);
  const groupCount = Number(/^environments (\d+)$/.exec(lines[2] ?? "")?.[1] ?? NaN);
  if (!Number.isInteger(count) || !Number.isInteger(groupCount))
    throw new AcknowledgedStateFormatError("acknowledged state: missing record or environment count");
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
    if (lines[at] !== `column ${name}`)
      throw new AcknowledgedStateFormatError(`acknowledged state: expected column ${name} at line ${at + 1}`);
    columns.set(name, lines.slice(at + 1, at + 1 + count));
    at += count + 1;
  }
  const column = (name: (typeof COLUMNS)[number], i: number) => unescapeField(columns.get(name)![i]!);
  const out: AcknowledgedRecord[] = [];
  const removed: string[] = [];
  const settled: string[] = [];
  // Rows without a record: removals from v3 on, settlements from v4 on.
  const markers = lines[0] === ACKNOWLEDGED_STATE_FORMAT ? [REMOVED, SETTLED] : lines[0] === FORMAT_V3 ? [REMOVED] : [];
  let nextDigest = 0;
  for (let i = 0; i < count; i++) {
    const group = groups[Number(columns.get("group")![i])];
    const deploymentName = column("deployment_name", i);
    const name = column("name", i);
    const refText = v1 ? "" : (columns.get("digest_ref")![i] ?? "");
    if (group && deploymentName !== undefined && name === undefined && markers.includes(refText)) {
      (refText === REMOVED ? removed : settled).push(recordKey(group, deploymentName));
      continue;
    }
    if (!group || deploymentName === undefined || name === undefined)
      throw new AcknowledgedStateFormatError(`record ${i}: environment, deployment name and name are required`);
    const spelled = column("digest", i);
    const ref = v1 ? i : spelled !== undefined ? -1 : refText === "" ? nextDigest++ : Number.parseInt(refText, 36);
    if (spelled === undefined && !(ref >= 0 && (ref + 1) * DIGEST_BYTES <= encoded.digests.length)) {
      throw new AcknowledgedStateFormatError(`record ${i}: no digest`);
    }
    const digest = spelled ?? `sha256:${encoded.digests.toString("hex", ref * DIGEST_BYTES, (ref + 1) * DIGEST_BYTES)}`;
    const entry: ClusterDeploymentEntry = {
      name,
      digest: digest as ClusterDeploymentEntry["digest"],
      status: "deployed",
      deployment_name: deploymentName,
    };
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
  return { records: out, removed, settled, checksum: checksumOf(raw, encoded.digests) };
}
