import { createHash } from "node:crypto";
import { constants, type Stats } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { basename } from "node:path";
import * as glob from "@actions/glob";
import { ShiplogError } from "@shiplog/client";
import PQueue from "p-queue";

/** Files hashed at a time: a glob can match thousands, and each hash holds a file open (EMFILE otherwise). */
export const HASH_CONCURRENCY = 8;

/** One artifact to record: its name and sha256 digest, and the file it came from if any. */
export interface Subject {
  name: string;
  digest: string;
  file?: string;
}

/** A file subject-path matched cannot be hashed (not a regular file, unreadable, a link loop), or a bad pattern. */
export class SubjectPathError extends ShiplogError {
  constructor(
    /** The file (or, for a bad pattern, the pattern) at fault. */
    readonly file: string,
    /** The rule it broke: `regular files only`, `readable files`, `pattern syntax`. */
    readonly rule: string,
    message: string,
  ) {
    super("subject_path_unusable", `subject-path: ${message}`);
  }
}

/** What a file system entry is, when it is not a regular file; undefined for a regular file. */
export function irregularKind(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  if (stats.isDirectory()) return "a directory";
  return "not a regular file";
}

const notRegular = (file: string, kind: string) =>
  new SubjectPathError(file, "regular files only", `${file} is ${kind}, not a regular file: only regular files are hashed`);

/** A file system error while matching or reading, as the file and what went wrong (never a stack). */
function unreadable(file: string, error: unknown): SubjectPathError {
  if (error instanceof SubjectPathError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const what: Record<string, string> = {
    ELOOP: "is a loop of symbolic links",
    EACCES: "cannot be read: permission denied",
    EPERM: "cannot be read: operation not permitted",
    ENOENT: "does not exist (any more)",
    EIO: "cannot be read: input/output error",
  };
  const reason = code
    ? `${what[code] ?? "cannot be read"} (${code})`
    : `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  return new SubjectPathError(file, "readable files", `${file} ${reason}`);
}

// Opening a FIFO for reading waits for a writer, forever without one: non-blocking, then checked before reading.
// (Windows has no O_NONBLOCK and no FIFOs to wait on.)
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * The sha256 digest of a regular file, as `sha256:<hex>`, read as a stream (artifacts can be large). Anything else
 * (FIFO, device, socket) is refused by name, before a byte is read; errors are SubjectPathErrors naming the file.
 */
export async function fileDigest(path: string): Promise<string> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    throw unreadable(path, error);
  }
  try {
    const kind = irregularKind(await handle.stat());
    if (kind) throw notRegular(path, kind);
    const hash = createHash("sha256");
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    return `sha256:${hash.digest("hex")}`;
  } catch (error) {
    throw unreadable(path, error);
  } finally {
    await handle.close();
  }
}

/**
 * Files matched by the subject-path globs (one pattern per line, `!` excludes), sorted for a stable order. A bad
 * pattern or a file system error while walking is a SubjectPathError.
 */
export async function matchFiles(patterns: string[]): Promise<string[]> {
  try {
    const globber = await glob.create(patterns.join("\n"), { matchDirectories: false, followSymbolicLinks: true });
    return [...new Set(await globber.glob())].sort();
  } catch (error) {
    throw globError(patterns, error);
  }
}

/** The matched files that cannot be hashed (FIFOs, devices, sockets, unreadable), each named; none are opened. */
export async function unusableFiles(files: readonly string[]): Promise<SubjectPathError[]> {
  const problems = await Promise.all(
    files.map(async (file) => {
      try {
        const kind = irregularKind(await stat(file));
        return kind ? notRegular(file, kind) : undefined;
      } catch (error) {
        return unreadable(file, error);
      }
    }),
  );
  return problems.filter((problem) => problem !== undefined);
}

/** @actions/glob's refusal of a pattern, or a file system error while walking, named for subject-path. */
function globError(patterns: string[], error: unknown): SubjectPathError {
  const message = error instanceof Error ? error.message : String(error);
  const invalid = /^Invalid pattern '(.*)'\. (.*)$/s.exec(message);
  if (invalid) {
    const detail = /Relative pathing/.test(invalid[2]!)
      ? "'.' and '..' segments are not allowed (use a path inside the workspace, or an absolute one)"
      : invalid[2]!;
    return new SubjectPathError(invalid[1]!, "pattern syntax", `pattern ${JSON.stringify(invalid[1])} is not allowed: ${detail}`);
  }
  const path = (error as NodeJS.ErrnoException).path;
  return path
    ? unreadable(path, error)
    : new SubjectPathError(patterns.join(", "), "readable files", `cannot match ${patterns.join(", ")}: ${message}`);
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
