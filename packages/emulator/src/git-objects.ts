import { createHash } from "node:crypto";

/** The object types git stores. */
export type GitObjectKind = "commit" | "tree" | "blob" | "tag";

/** A person and moment as git writes them in `author`, `committer` and `tagger` lines. */
export interface GitIdent {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  seconds: number;
  /** The timezone as git writes it: `+hhmm` or `-hhmm`. */
  offset: string;
}

/** The object id git computes: SHA-1 of `<type> <length>\0<content>` (what `git hash-object -t <type>` prints). */
export function hashObject(type: GitObjectKind, content: Buffer): string {
  const header = Buffer.from(`${type} ${content.length}\0`, "utf8");
  return createHash("sha1").update(header).update(content).digest("hex");
}

/** Formats an ident line's value: `Name <email> 1700000000 +0100`. */
export function formatIdent(ident: GitIdent): string {
  return `${ident.name} <${ident.email}> ${ident.seconds} ${ident.offset}`;
}

/**
 * Reads an ISO 8601 timestamp into git's seconds and offset, keeping the offset it was written with
 * (`2011-06-17T14:53:35-07:00` → 1308347615, `-0700`; `Z` → `+0000`).
 */
export function gitTime(iso: string): { seconds: number; offset: string } {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not an ISO 8601 timestamp: ${iso}`);
  const match = /([+-])(\d{2}):?(\d{2})$/.exec(iso);
  const offset = match && !/z$/i.test(iso) ? `${match[1]}${match[2]}${match[3]}` : "+0000";
  return { seconds: Math.floor(ms / 1000), offset };
}

/** The ISO form of a git time, in UTC with `Z` (how the service answers dates). */
export function isoFromGitTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/**
 * A git time in ISO 8601 with the offset it was stored with (`1308347615`, `-0700` → `2011-06-17T14:53:35-07:00`;
 * `+0000` → `Z`), so the answer's date reproduces the object's tagger line.
 */
export function isoWithOffset(seconds: number, offset: string): string {
  const match = /^([+-])(\d\d)(\d\d)$/.exec(offset);
  if (!match || offset === "+0000") return isoFromGitTime(seconds);
  const shiftSeconds = (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 3600 + Number(match[3]) * 60);
  const local = new Date((seconds + shiftSeconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "");
  return `${local}${match[1]}${match[2]}:${match[3]}`;
}

/** Git ends a non-empty message with a newline (as `git tag -m` and `git commit -m` do). */
export function withFinalNewline(message: string): string {
  return message === "" || message.endsWith("\n") ? message : `${message}\n`;
}

/** The content of a tag object, byte for byte as git writes it. */
export function tagContent(tag: { object: string; type: GitObjectKind; tag: string; tagger: GitIdent; message: string }): Buffer {
  const header = `object ${tag.object}\ntype ${tag.type}\ntag ${tag.tag}\ntagger ${formatIdent(tag.tagger)}\n`;
  return Buffer.from(`${header}\n${withFinalNewline(tag.message)}`, "utf8");
}

/** The content of a commit object. */
export function commitContent(commit: { tree: string; parents: string[]; author: GitIdent; committer: GitIdent; message: string }): Buffer {
  const lines = [
    `tree ${commit.tree}`,
    ...commit.parents.map((p) => `parent ${p}`),
    `author ${formatIdent(commit.author)}`,
    `committer ${formatIdent(commit.committer)}`,
  ];
  return Buffer.from(`${lines.join("\n")}\n\n${withFinalNewline(commit.message)}`, "utf8");
}

/** One entry of a tree: a file (`100644`) or a subtree (`40000`). */
export interface TreeEntry {
  mode: "100644" | "100755" | "40000";
  name: string;
  sha: string;
}

/** The binary content of a tree object: entries sorted as git sorts them (subtrees compare as `name/`). */
export function treeContent(entries: TreeEntry[]): Buffer {
  const sortKey = (e: TreeEntry) => (e.mode === "40000" ? `${e.name}/` : e.name);
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(sortKey(a)), Buffer.from(sortKey(b))));
  return Buffer.concat(sorted.map((e) => Buffer.concat([Buffer.from(`${e.mode} ${e.name}\0`, "utf8"), Buffer.from(e.sha, "hex")])));
}
