// The layout of the state spread over several ConfigMaps, and the decisions about it, apart from the API calls
// (state/configmap-store.ts makes those). Pure: plain data in, plain data out.
// - The head ConfigMap (`<name>`) names, for each shard index, which of its two fixed slots (`<name>-shard-<i>-a`,
//   `-b`) holds the shard's current content and that content's checksum, and carries the journal: the changes since
//   the shards were last written, as numbered segments. A segment settles an answered intent by its key: the reader
//   moves the key's committed in-flight entry (the journal so far, else the shards) to the records.
// - A record lives in shard `fnv1a(key) mod partitions`. A compaction (state/compaction.ts) folds the journal into
//   the shards: only the shards that changed are encoded, each into its spare slot, and one head update makes them
//   current.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { AcknowledgedRecord } from "./acknowledged-state.js";
import { sameEntry } from "../mapping/record-diff.js";
import {
  AcknowledgedStateFormatError,
  decodeRecordSet,
  encodeAcknowledgedState,
  type DecodedRecordSet,
  type EncodedAcknowledgedState,
} from "./encoding.js";

/** `data.format` of a head ConfigMap. */
export const STATE_LAYOUT = "shiplog-state v3";
/** The two slots of a shard index. */
export const SLOTS = ["a", "b"] as const;
export type Slot = (typeof SLOTS)[number];

/** Net changes: a record, or null for a removed one, by key. */
export interface RecordChanges {
  records: Map<string, AcknowledgedRecord | null>;
  inFlight: Map<string, AcknowledgedRecord | null>;
}

/** The content of one shard. */
export interface ShardContent {
  records: AcknowledgedRecord[];
  inFlight: AcknowledgedRecord[];
}

/** One shard as the head names it. */
export interface ShardRef {
  /** The slot holding the current content; null while the shard is empty (no ConfigMap needed). */
  slot: Slot | null;
  checksum: string;
  records: number;
  inFlight: number;
  /** Encoded bytes of the content (binaryData). */
  bytes: number;
  /** Each slot's resourceVersion as last written, null when unknown: the next write of a slot is conditional on it. */
  versions: Record<Slot, string | null>;
}

/** The state as committed: what the head names. */
export interface CommittedState {
  /** The head's resourceVersion; null while there is no head. */
  version: string | null;
  /** The next write rewrites the head in full: absent, single-ConfigMap format, or not ours to keep. */
  rewrite: boolean;
  shards: { ref: ShardRef | undefined; content: ShardContent }[];
  journal: RecordChanges;
  /** The last journal segment's number. */
  seq: number;
  /** The journal settles intents (format v4): a graceful shutdown folds it, so the previous version can read it. */
  settlements: boolean;
  /** The head's data as stored, and its journal's bytes: together, the head's size. */
  data: Record<string, string>;
  journalBytes: number;
}

/** No changes. */
export const emptyChanges = (): RecordChanges => ({ records: new Map(), inFlight: new Map() });

/** A state to be rewritten in full at the next write: `content` in one shard (nothing, or a migrated ConfigMap's). */
export function stateToRewrite(version: string | null, content: ShardContent = { records: [], inFlight: [] }): CommittedState {
  return {
    version,
    rewrite: true,
    shards: [{ ref: undefined, content }],
    journal: emptyChanges(),
    seq: 0,
    settlements: false,
    data: {},
    journalBytes: 0,
  };
}

/** The records and in-flight entries a committed state holds, with `unwritten` changes on top. */
export function materialize(
  base: CommittedState,
  unwritten: RecordChanges,
): { records: Map<string, AcknowledgedRecord>; inFlight: Map<string, AcknowledgedRecord> } {
  const records = new Map<string, AcknowledgedRecord>();
  const inFlight = new Map<string, AcknowledgedRecord>();
  for (const { content } of base.shards) {
    for (const r of content.records) records.set(r.key, r);
    for (const r of content.inFlight) inFlight.set(r.key, r);
  }
  for (const [target, changes] of [
    [records, base.journal.records],
    [inFlight, base.journal.inFlight],
    [records, unwritten.records],
    [inFlight, unwritten.inFlight],
  ] as const) {
    for (const [key, record] of changes) {
      if (record) target.set(key, record);
      else target.delete(key);
    }
  }
  return { records, inFlight };
}

/** Limits of the layout. */
export interface StateLimits {
  maxShards: number;
  /** Most encoded bytes in one shard (Kubernetes' 1 MiB less room for the data fields). */
  shardMaxBytes: number;
  /** The journal is compacted before the head would grow past this. */
  headMaxBytes: number;
}

/** The ConfigMap of shard `index`'s `slot`. */
export function slotName(stateName: string, index: number, slot: Slot): string {
  return `${stateName}-shard-${index}-${slot}`;
}

/** Every slot name `maxShards` shards may use (the chart's Role lists them). */
export function slotNames(stateName: string, maxShards: number): string[] {
  return Array.from({ length: maxShards }, (_, i) => SLOTS.map((slot) => slotName(stateName, i, slot))).flat();
}

/** The shard of a record key: 32-bit FNV-1a of its UTF-16 code units, modulo the number of shards. */
export function shardOf(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % partitions;
}

/** binaryData keys of a stored record set pair: `prefix` "" in a shard slot (and the single ConfigMap of v1/v2). */
export function partKeys(prefix: string): { records: string; digests: string; inFlight: string; inFlightDigests: string } {
  return {
    records: `${prefix}records.gz`,
    digests: `${prefix}digests`,
    inFlight: `${prefix}in-flight.gz`,
    inFlightDigests: `${prefix}in-flight-digests`,
  };
}

/** The key prefix of journal segment `seq`. */
export function segmentPrefix(seq: number): string {
  return `journal-${String(seq).padStart(6, "0")}.`;
}

/** The journal segments present in a head's binaryData, in order. */
export function segmentSeqs(binaryKeys: Iterable<string>): number[] {
  const seqs = new Set<number>();
  for (const key of binaryKeys) {
    const match = /^journal-(\d+)\./.exec(key);
    if (match) seqs.add(Number(match[1]));
  }
  return [...seqs].sort((a, b) => a - b);
}

/** An encoded record set pair, as binaryData entries, with its size and the checksums of its parts. */
export interface EncodedPart {
  binaryData: Record<string, Buffer>;
  /** Keys it settles (a journal segment). */
  settlements: number;
  bytes: number;
  checksum: string;
}

/** The committed in-flight entry of a key, undefined when none: what a settlement in the next segment refers to. */
export type InFlightLookup = (key: string) => AcknowledgedRecord | undefined;

/**
 * Encodes a journal segment's changes under `prefix`: records and in-flight entries, with removals; a set with no
 * change is left out. An accepted record that is its key's committed in-flight entry (`inFlightBefore`) is written
 * as a settlement of that key, so the entry is not written a second time.
 */
export function encodeSegment(prefix: string, changes: RecordChanges, inFlightBefore: InFlightLookup): EncodedPart {
  const settled = new Set<string>();
  for (const [key, record] of changes.inFlight) {
    const accepted = record === null ? changes.records.get(key) : undefined;
    if (accepted && sameRecord(inFlightBefore(key), accepted)) settled.add(key);
  }
  const split = (set: Map<string, AcknowledgedRecord | null>) => {
    const kept: AcknowledgedRecord[] = [];
    const removed: string[] = [];
    const settles: string[] = [];
    for (const [key, record] of set) {
      if (settled.has(key)) settles.push(key);
      else if (record) kept.push(record);
      else removed.push(key);
    }
    return { kept, removed, settles };
  };
  const records = split(changes.records);
  const inFlight = split(changes.inFlight);
  const part = assemble(
    prefix,
    settled.size,
    changes.records.size > settled.size ? encodeAcknowledgedState(records.kept, records.removed) : undefined,
    changes.inFlight.size > 0 ? encodeAcknowledgedState(inFlight.kept, inFlight.removed, inFlight.settles) : undefined,
  );
  // The segment's checksum and key count beside it (`<prefix>check`), so a reader verifies it before using it and
  // knows what an unreadable one cost (state/recovery.ts). The previous version reads past the key.
  const keys = new Set([...changes.records.keys(), ...changes.inFlight.keys()]).size;
  const check = Buffer.from(`${part.checksum} ${keys}`, "utf8");
  part.binaryData[`${prefix}check`] = check;
  part.bytes += check.length;
  return part;
}

/**
 * The next journal segment: the `unwritten` changes of as many keys as fit `limit` bytes (a key's record and in-flight
 * changes go together), encoded against the committed state `base`.
 */
export function nextSegment(
  unwritten: RecordChanges,
  base: CommittedState,
  seq: number,
  limit: number,
): { changes: RecordChanges; part: EncodedPart } {
  const keys = [...new Set([...unwritten.records.keys(), ...unwritten.inFlight.keys()])];
  const settles = committedInFlight(base.journal, shardInFlight(base.shards));
  // First guess: a changed key takes about 40 bytes (its 32-byte digest, its share of the gzip text).
  for (let count = Math.min(keys.length, Math.ceil(limit / 40)); ; count = Math.ceil(count / 2)) {
    const changes = emptyChanges();
    for (const key of keys.slice(0, count)) {
      if (unwritten.records.has(key)) changes.records.set(key, unwritten.records.get(key)!);
      if (unwritten.inFlight.has(key)) changes.inFlight.set(key, unwritten.inFlight.get(key)!);
    }
    const part = encodeSegment(segmentPrefix(seq), changes, settles);
    if (part.bytes <= limit || count === 1) return { changes, part };
  }
}

/** Encodes a shard slot's content: both sets, always, so the checksum covers both. */
export function encodeShard(content: ShardContent): EncodedPart {
  return assemble("", 0, encodeAcknowledgedState(content.records), encodeAcknowledgedState(content.inFlight));
}

function assemble(
  prefix: string,
  settlements: number,
  records: EncodedAcknowledgedState | undefined,
  inFlight: EncodedAcknowledgedState | undefined,
): EncodedPart {
  const keys = partKeys(prefix);
  const binaryData: Record<string, Buffer> = {};
  if (records) Object.assign(binaryData, { [keys.records]: records.text, [keys.digests]: records.digests });
  if (inFlight) Object.assign(binaryData, { [keys.inFlight]: inFlight.text, [keys.inFlightDigests]: inFlight.digests });
  const bytes = Object.values(binaryData).reduce((n, b) => n + b.length, 0);
  return {
    binaryData,
    settlements,
    bytes,
    checksum: combine([records?.checksum, inFlight?.checksum].filter((c): c is string => c !== undefined)),
  };
}

/** Two records are the same when their keys and entries are. */
function sameRecord(a: AcknowledgedRecord | undefined, b: AcknowledgedRecord): boolean {
  return a !== undefined && (a === b || (a.key === b.key && sameEntry(a.entry, b.entry)));
}

/** The committed in-flight entry of a key: the journal's (even a removal), else the shards'. */
export function committedInFlight(journal: RecordChanges, inShards: InFlightLookup): InFlightLookup {
  return (key) => (journal.inFlight.has(key) ? (journal.inFlight.get(key) ?? undefined) : inShards(key));
}

/** The in-flight entries the shards hold (indexed once per list of shards). */
export function shardInFlight(shards: CommittedState["shards"]): InFlightLookup {
  let index = shardInFlightIndex.get(shards);
  if (!index) {
    index = new Map(shards.flatMap(({ content }) => content.inFlight.map((r) => [r.key, r] as const)));
    shardInFlightIndex.set(shards, index);
  }
  const found = index;
  return (key) => found.get(key);
}
const shardInFlightIndex = new WeakMap<object, Map<string, AcknowledgedRecord>>();

/** Decodes what encodeSegment or encodeShard wrote (missing sets are empty), with the checksum they computed. */
export function decodePart(
  binaryData: Record<string, string>,
  prefix: string,
): { records?: DecodedRecordSet; inFlight?: DecodedRecordSet; checksum: string } {
  const keys = partKeys(prefix);
  const set = (textKey: string, digestKey: string) => {
    const text = binaryData[textKey];
    if (text === undefined) return undefined;
    return decodeRecordSet({ text: Buffer.from(text, "base64"), digests: Buffer.from(binaryData[digestKey] ?? "", "base64") });
  };
  const records = set(keys.records, keys.digests);
  const inFlight = set(keys.inFlight, keys.inFlightDigests);
  const checksum = combine([records?.checksum, inFlight?.checksum].filter((c): c is string => c !== undefined));
  return { ...(records && { records }), ...(inFlight && { inFlight }), checksum };
}

function combine(checksums: string[]): string {
  return createHash("sha256").update(checksums.join(":")).digest("hex");
}

/**
 * Applies a decoded segment (or any decoded set pair) to net changes: later changes win, key by key. A settlement
 * moves its key's committed in-flight entry (the journal so far, else `inShards`) to the records. Returns the keys
 * settled without an in-flight entry to move (never written so; the caller says so).
 */
export function applySegment(
  journal: RecordChanges,
  segment: { records?: DecodedRecordSet; inFlight?: DecodedRecordSet },
  inShards: InFlightLookup = () => undefined,
): string[] {
  const unresolved: string[] = [];
  const inFlightBefore = committedInFlight(journal, inShards);
  for (const key of segment.inFlight?.settled ?? []) {
    const entry = inFlightBefore(key);
    if (entry) journal.records.set(key, entry);
    else unresolved.push(key);
    journal.inFlight.set(key, null);
  }
  const apply = (target: Map<string, AcknowledgedRecord | null>, set: DecodedRecordSet | undefined) => {
    if (!set) return;
    for (const record of set.records) target.set(record.key, record);
    for (const key of set.removed) target.set(key, null);
  };
  apply(journal.records, segment.records);
  apply(journal.inFlight, segment.inFlight);
  return unresolved;
}

const shardRefSchema = z.object({
  slot: z.enum(SLOTS).nullable(),
  checksum: z.string(),
  records: z.number().int().min(0),
  inFlight: z.number().int().min(0),
  bytes: z.number().int().min(0),
  versions: z.object({ a: z.string().nullable(), b: z.string().nullable() }),
});

/** The head's shard table as text (`data.shards`): one JSON object per line, in shard order. */
export function formatShardTable(shards: readonly ShardRef[]): string {
  const line = (s: ShardRef) =>
    JSON.stringify({ slot: s.slot, checksum: s.checksum, records: s.records, inFlight: s.inFlight, bytes: s.bytes, versions: s.versions });
  return `[\n${shards.map(line).join(",\n")}\n]`;
}

/** Reads `data.shards` and `data.partitions`; throws AcknowledgedStateFormatError when they do not make a table. */
export function parseShardTable(text: string | undefined, partitionsText: string | undefined): ShardRef[] {
  const partitions = Number(partitionsText);
  let value: unknown;
  try {
    value = JSON.parse(text ?? "");
  } catch {
    throw new AcknowledgedStateFormatError("state head: data.shards is not JSON");
  }
  const parsed = z.array(shardRefSchema).safeParse(value);
  if (!parsed.success) throw new AcknowledgedStateFormatError(`state head: data.shards: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  if (!Number.isInteger(partitions) || partitions < 1 || parsed.data.length !== partitions) {
    throw new AcknowledgedStateFormatError(`state head: ${parsed.data.length} shards listed for ${partitionsText ?? "no"} partitions`);
  }
  return parsed.data;
}
