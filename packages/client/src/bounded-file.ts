// The one rule for a file a setting names (a token or key file, a kubeconfig, a checksums file, a runner's output
// file): a regular file of bounded size, opened without waiting (a FIFO would wait for a writer forever), checked
// on the open descriptor (fstat: no race between the check and the read), and named with its rule when it is not.
// A setting that may hold a secret never has its value quoted unless it is plainly a path, and content pasted
// where a path belongs (a PEM key, a kubeconfig, several lines) is named as such in one line.
// Used by the controller, the CLI and the action (through @shiplog/client/internal).
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync, writeSync, type Stats } from "node:fs";
import { ShiplogError } from "./errors/errors.js";

/** Bytes a path may have before it is surely content rather than a path (Linux's PATH_MAX). */
const PATH_MAX = 4096;

/** Opens without waiting: a FIFO opens at once (for reading) or fails with ENXIO (for writing, with no reader). */
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** What a file a setting names must be, and how it is named in messages. */
export interface BoundedFileOptions {
  /** The setting, as the user wrote it: `--token-file / SHIPLOG_TOKEN_FILE`, `subject-checksums`. */
  setting: string;
  /** What the file holds, in words: `the token`, `the App's private key`, `a kubeconfig`. */
  holds: string;
  /** Most bytes the file may have. */
  maxBytes: number;
  /** The value may be a secret pasted where its path belongs: its value is quoted only when it is plainly a path. */
  secret?: boolean;
  /** An empty file (or one of only white space) is accepted. Default: refused. */
  allowEmpty?: boolean;
}

/** A file a setting names is not a readable (or writable) regular file within its bound; nothing was read from it. */
export class BoundedFileError extends ShiplogError {
  declare readonly code: "file_unusable";

  constructor(
    /** The setting that named the file. */
    readonly setting: string,
    /** The rule it broke: `regular file`, `at most N bytes`, `a path, not the content`, `readable`, `non-empty`. */
    readonly rule: string,
    /** What is wrong, without the setting: `/x is a directory, not a regular file`. */
    readonly detail: string,
  ) {
    super("file_unusable", `${setting}: ${detail} [rule: ${rule}]`);
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), setting: this.setting, rule: this.rule };
  }
}

/** Bytes as people read them: 512 bytes, 64 KiB, 16 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** What `fs.Stats` tells of an entry's type (declared here so the client's types need no @types/node). */
export interface EntryType {
  isFile(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isDirectory(): boolean;
}

/** What a file system entry is when it is not a regular file; undefined for a regular file. */
export function irregularKind(stats: EntryType): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isFIFO()) return "a named pipe (FIFO)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  if (stats.isDirectory()) return "a directory";
  return "not a regular file";
}

/** Whether a value is content rather than a path: a PEM block, several lines, or longer than any path. */
function contentKind(value: string): string | undefined {
  if (/-----BEGIN [A-Z ]+-----/.test(value)) return "key content (a PEM block)";
  if (/^\s*(apiVersion|kind|clusters|contexts|users|current-context)\s*:/m.test(value) && /[\r\n]/.test(value)) return "kubeconfig content";
  if (/[\r\n]/.test(value)) return "content of several lines";
  if (Buffer.byteLength(value) > PATH_MAX) return `${Buffer.byteLength(value)} bytes, longer than any path`;
  return undefined;
}

/**
 * How a path is shown: quoted, unless the setting may hold a secret and the value is not plainly a path (absolute,
 * or `./`, `../`, `~/`, or with a `/` in it): a token given where its file belongs would otherwise be printed.
 */
export function shownPath(value: string, secret: boolean | undefined): string {
  if (!secret || /^(\/|\.{1,2}\/|~\/)/.test(value) || (value.includes("/") && !/\s/.test(value))) return JSON.stringify(value);
  return "the path given (not shown: it may be the secret itself)";
}

/** The content-as-path refusal, or undefined when the value may be a path. */
export function contentAsPathError(value: string, options: Pick<BoundedFileOptions, "setting" | "holds">): BoundedFileError | undefined {
  const kind = contentKind(value);
  if (kind === undefined) return undefined;
  return new BoundedFileError(
    options.setting,
    "a path, not the content",
    `holds ${kind} where the path of a file belongs: put ${options.holds} in a file and give the file's path`,
  );
}

/** An open or read failure, as the rule and what went wrong (the path already shown by the caller). */
function failure(path: string, where: string, error: unknown, options: BoundedFileOptions, writing = false): BoundedFileError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const verb = writing ? "written" : "read";
  if (code === "ENOENT") {
    const secretHint = options.secret && where.startsWith("the path given") ? ` (is it ${options.holds} itself rather than a path?)` : "";
    return new BoundedFileError(options.setting, "existing file", `${where} does not exist${secretHint}`);
  }
  if (code === "ENOTDIR")
    return new BoundedFileError(options.setting, "existing file", `${where} does not exist (a part of it is not a directory)`);
  if (code === "EISDIR") return new BoundedFileError(options.setting, "regular file", `${where} is a directory, not a regular file`);
  if (code === "ENXIO" || code === "EOPNOTSUPP") {
    // A FIFO without a reader (opened for writing without waiting), or a socket: named by what it is.
    let kind = "not a regular file";
    try {
      kind = irregularKind(statSync(path)) ?? kind;
    } catch {}
    return notRegular(path, where, kind, options);
  }
  if (code === "EACCES" || code === "EPERM") {
    return new BoundedFileError(
      options.setting,
      writing ? "writable" : "readable",
      `${where} cannot be ${verb}: permission denied (${code})`,
    );
  }
  if (code === "ELOOP") return new BoundedFileError(options.setting, "existing file", `${where} is a loop of symbolic links`);
  if (code === "ENAMETOOLONG") {
    return new BoundedFileError(options.setting, "a path, not the content", `${where} is too long to be a path (${options.holds} itself?)`);
  }
  return new BoundedFileError(options.setting, writing ? "writable" : "readable", `${where} cannot be ${verb} (${code ?? "error"})`);
}

/** Not a regular file, named by what it is, and by where it leads when the path is a symbolic link. */
function notRegular(path: string, where: string, kind: string, options: BoundedFileOptions): BoundedFileError {
  let link = "";
  try {
    if (lstatSync(path).isSymbolicLink()) link = ` (a symbolic link to ${realpathSync(path)})`;
  } catch {}
  return new BoundedFileError(options.setting, "regular file", `${where}${link} is ${kind}, not a regular file`);
}

/** The open descriptor's file, refused unless regular and within the bound. */
function checkOpened(path: string, fd: number, where: string, options: BoundedFileOptions): Stats {
  const stats = fstatSync(fd);
  const kind = irregularKind(stats);
  if (kind) throw notRegular(path, where, kind, options);
  if (stats.size > options.maxBytes) {
    throw new BoundedFileError(
      options.setting,
      `at most ${formatBytes(options.maxBytes)}`,
      `${where} is ${stats.size} bytes, more than the ${formatBytes(options.maxBytes)} ${options.holds} may take`,
    );
  }
  return stats;
}

/**
 * Reads the file a setting names, as UTF-8 text: a regular file of at most `maxBytes`, not empty unless allowed.
 * Anything else is a BoundedFileError naming the setting, the file (unless it may be a secret) and the rule, and
 * nothing of the file is read (a FIFO is not waited on, /dev/zero not read).
 */
export function readBoundedFile(path: string, options: BoundedFileOptions): string {
  const content = contentAsPathError(path, options);
  if (content) throw content;
  if (path === "") throw new BoundedFileError(options.setting, "a path", "is empty: give the path of a file");
  const where = shownPath(path, options.secret);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NONBLOCK);
  } catch (error) {
    throw failure(path, where, error, options);
  }
  try {
    try {
      checkOpened(path, fd, where, options);
    } catch (error) {
      if (error instanceof BoundedFileError) throw error;
      throw failure(path, where, error, options);
    }
    // The size was checked; a file that grows meanwhile (or reports no size, as /proc does) is still read to the bound only.
    const buffer = Buffer.alloc(Math.min(options.maxBytes + 1, 64 * 1024));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        throw failure(path, where, error, options);
      }
      if (n === 0) break;
      total += n;
      if (total > options.maxBytes) {
        throw new BoundedFileError(
          options.setting,
          `at most ${formatBytes(options.maxBytes)}`,
          `${where} holds more than the ${formatBytes(options.maxBytes)} ${options.holds} may take`,
        );
      }
      chunks.push(Buffer.from(buffer.subarray(0, n)));
    }
    const text = Buffer.concat(chunks).toString("utf8");
    if (!options.allowEmpty && text.trim() === "") {
      throw new BoundedFileError(options.setting, "non-empty", `${where} is empty: it must hold ${options.holds}`);
    }
    return text;
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends text to the file a setting names (a runner's GITHUB_OUTPUT or GITHUB_STEP_SUMMARY): an existing regular
 * file, opened without waiting (a FIFO without a reader is refused at once, not waited on). `maxBytes` bounds what
 * the file may hold after the write.
 */
export function appendToBoundedFile(path: string, text: string, options: BoundedFileOptions): void {
  if (path === "") throw new BoundedFileError(options.setting, "a path", "is empty: give the path of a file");
  const where = shownPath(path, options.secret);
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | NONBLOCK);
  } catch (error) {
    throw failure(path, where, error, options, true);
  }
  try {
    let stats: Stats;
    try {
      stats = fstatSync(fd);
    } catch (error) {
      throw failure(path, where, error, options, true);
    }
    const kind = irregularKind(stats);
    if (kind) throw notRegular(path, where, kind, options);
    const bytes = Buffer.from(text, "utf8");
    if (stats.size + bytes.length > options.maxBytes) {
      throw new BoundedFileError(
        options.setting,
        `at most ${formatBytes(options.maxBytes)}`,
        `${where} would hold ${stats.size + bytes.length} bytes, more than the ${formatBytes(options.maxBytes)} it may take`,
      );
    }
    let written = 0;
    while (written < bytes.length) {
      try {
        written += writeSync(fd, bytes, written, bytes.length - written);
      } catch (error) {
        throw failure(path, where, error, options, true);
      }
    }
  } finally {
    closeSync(fd);
  }
}
