import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, lstat, open, realpath, stat } from "node:fs/promises";
import { basename, isAbsolute, relative } from "node:path";
import * as glob from "@actions/glob";
import { ShiplogError } from "@shiplog/client";
import { irregularKind } from "@shiplog/client/internal";
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

/**
 * Most subjects one run records: each is one storage-record write, and the service allows 500 writes an hour (80 a
 * minute), so a pattern matching thousands of files would take hours. Past it, the run stops before hashing.
 */
export const MAX_SUBJECTS = 250;

/** More subjects than MAX_SUBJECTS: named, with what to do instead. */
export class TooManySubjectsError extends ShiplogError {
  readonly rule = `at most ${MAX_SUBJECTS} subjects`;

  constructor(
    /** The input that named them. */
    readonly input: "subject-path" | "subject-checksums" | "subject-digest",
    /** What was found: `matched more than 250 files (the search stopped there)`, `name 300 subjects in all`. */
    found: string,
  ) {
    super(
      "too_many_subjects",
      `${input}: ${found}, more than the ${MAX_SUBJECTS} one run records (each is one storage-record write; the ` +
        "service allows 500 an hour): narrow the patterns, or list the artifacts to record, with their sha256 digests, in a " +
        "checksums file given as subject-checksums (sha256sum's format)",
    );
  }
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

/** The workspace the matches must stay in: GITHUB_WORKSPACE (where the runner starts the step), else the working directory. */
export function workspaceRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.GITHUB_WORKSPACE || process.cwd();
}

/** Whether `path` (real, absolute) is `root` or inside it. */
const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

/** `where`: how the file is outside, e.g. `is a symbolic link to /etc/passwd`; empty when it is outside itself. */
const outsideWorkspace = (file: string, where: string) =>
  new SubjectPathError(
    file,
    "inside the workspace",
    `${file}${where ? ` ${where},` : " is"} outside the workspace: only files in the workspace (GITHUB_WORKSPACE) are ` +
      "recorded; copy the artifact into it",
  );

/**
 * Files matched by the subject-path globs (one pattern per line, `!` excludes), sorted for a stable order. Only the
 * workspace is searched: a pattern rooted outside it (or at a symbolic link leading out) is refused before any walk,
 * symbolic links are not followed while walking, and the search stops past MAX_SUBJECTS files (TooManySubjectsError).
 * A bad pattern or a file system error while walking is a SubjectPathError.
 */
export async function matchFiles(patterns: string[], workspace = workspaceRoot()): Promise<string[]> {
  let root: string;
  try {
    root = await realpath(workspace);
  } catch (error) {
    throw unreadable(workspace, error);
  }
  const files = new Set<string>();
  try {
    const globber = await glob.create(patterns.join("\n"), { matchDirectories: false, followSymbolicLinks: false });
    for (const searchPath of globber.getSearchPaths()) {
      let real: string;
      try {
        real = await realpath(searchPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw unreadable(searchPath, error);
      }
      if (!inside(root, real)) throw outsideWorkspace(searchPath, real === searchPath ? "" : `leads to ${real}`);
    }
    for await (const file of globber.globGenerator()) {
      files.add(file);
      if (files.size > MAX_SUBJECTS)
        throw new TooManySubjectsError("subject-path", `matched more than ${MAX_SUBJECTS} files (the search stopped there)`);
    }
  } catch (error) {
    if (error instanceof TooManySubjectsError || error instanceof SubjectPathError) throw error;
    throw globError(patterns, error);
  }
  return [...files].sort();
}

/**
 * The matched files that cannot be hashed, each named; none are opened: FIFOs, devices, sockets, unreadable files,
 * and symbolic links leading out of the workspace. A symbolic link to a directory in the workspace is not followed
 * (the walk does not follow links either): dropped, as directories are, and listed in `skipped`.
 */
export async function unusableFiles(
  files: readonly string[],
  workspace = workspaceRoot(),
): Promise<{ problems: SubjectPathError[]; usable: string[]; skipped: string[] }> {
  const root = await realpath(workspace);
  const usable: string[] = [];
  const skipped: string[] = [];
  const problems = await Promise.all(
    files.map(async (file) => {
      try {
        const link = (await lstat(file)).isSymbolicLink();
        const real = link ? await realpath(file) : file;
        if (link && !inside(root, real)) return outsideWorkspace(file, `is a symbolic link to ${real}`);
        const stats = await stat(real);
        if (link && stats.isDirectory()) {
          skipped.push(file);
          return undefined;
        }
        const kind = irregularKind(stats);
        if (kind) return notRegular(file, kind);
        usable.push(file);
        return undefined;
      } catch (error) {
        return unreadable(file, error);
      }
    }),
  );
  return { problems: problems.filter((problem) => problem !== undefined), usable: usable.sort(), skipped: skipped.sort() };
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
