import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { basename } from "node:path";
import * as glob from "@actions/glob";
import PQueue from "p-queue";

/** Files hashed at a time: a glob can match thousands, and each hash holds a file open (EMFILE otherwise). */
export const HASH_CONCURRENCY = 8;

/** One artifact to record: its name and sha256 digest, and the file it came from if any. */
export interface Subject {
  name: string;
  digest: string;
  file?: string;
}

/** The sha256 digest of a file, as `sha256:<hex>`, read as a stream (artifacts can be large). */
export async function fileDigest(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest("hex")}`;
}

/** Files matched by the subject-path globs (one pattern per line, `!` excludes), sorted for a stable order. */
export async function matchFiles(patterns: string[]): Promise<string[]> {
  const globber = await glob.create(patterns.join("\n"), { matchDirectories: false, followSymbolicLinks: true });
  return [...new Set(await globber.glob())].sort();
}

export interface FileSubjectsOptions {
  /** Files hashed at a time. Default: HASH_CONCURRENCY. */
  concurrency?: number;
  /** How a file is hashed. Default: fileDigest. */
  digest?: (path: string) => Promise<string>;
}

/** Subjects for matched files, in their order: each named by `name` or else its base name, with its computed digest. */
export async function fileSubjects(files: string[], name: string | undefined, options: FileSubjectsOptions = {}): Promise<Subject[]> {
  const digest = options.digest ?? fileDigest;
  const queue = new PQueue({ concurrency: options.concurrency ?? HASH_CONCURRENCY });
  try {
    return await queue.addAll(files.map((file) => async () => ({ name: name ?? basename(file), digest: await digest(file), file })));
  } finally {
    // After a failure, the files still waiting are not worth reading.
    queue.clear();
  }
}
