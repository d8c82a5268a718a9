import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { basename } from "node:path";
import * as glob from "@actions/glob";

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

/** Subjects for matched files: each named by `name` or else its base name, with its computed digest. */
export async function fileSubjects(files: string[], name: string | undefined): Promise<Subject[]> {
  return Promise.all(files.map(async (file) => ({ name: name ?? basename(file), digest: await fileDigest(file), file })));
}
