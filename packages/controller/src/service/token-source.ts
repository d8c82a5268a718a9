// The API token, kept current. Kubernetes updates a mounted Secret's files in place (an atomic symlink swap), and
// app installation tokens expire hourly, so a token read once at start goes stale: a file-backed token is read
// again whenever the file's modification time, inode or size changes, and on demand after a 401. The token itself
// is never logged.
import { statSync } from "node:fs";
import { BoundedFileError, readBoundedFile } from "@shiplog/client/internal";
import type { Logger } from "pino";

/** Most bytes a token file may hold (a token is tens of bytes; a JWT a few KiB). */
export const MAX_TOKEN_FILE_BYTES = 64 * 1024;

/**
 * The token file's text: a regular file of at most MAX_TOKEN_FILE_BYTES, not empty. Anything else (a FIFO, a
 * directory, the token itself where the path belongs) is a BoundedFileError naming `setting`, never the token.
 * Read again while running, an empty file is let through (`allowEmpty`) for the caller to keep the token it has.
 */
export function readTokenFile(path: string, setting: string, allowEmpty = false): string {
  return readBoundedFile(path, { setting, holds: "the token", maxBytes: MAX_TOKEN_FILE_BYTES, secret: true, allowEmpty });
}

/** Where the API token comes from. */
export interface TokenSource {
  /** The token to send now. */
  current(): string;
  /** Reads the token again now (after a 401); true when it changed. */
  refresh(): boolean;
}

/** A token given once (SHIPLOG_TOKEN): it never changes. */
export class StaticTokenSource implements TokenSource {
  constructor(private readonly token: string) {}

  current(): string {
    return this.token;
  }

  refresh(): boolean {
    return false;
  }
}

/** A token read from a file, and read again when the file changes. */
export class FileTokenSource implements TokenSource {
  #token: string;
  #stamp: string | undefined;
  #statFailed = false;

  /** `initial`: the token as read (and validated) at start. */
  constructor(
    readonly path: string,
    initial: string,
    private readonly logger?: Logger,
  ) {
    this.#token = initial;
    this.#stamp = this.#statStamp();
  }

  current(): string {
    const stamp = this.#statStamp();
    if (stamp !== undefined && stamp !== this.#stamp) this.#read(stamp);
    return this.#token;
  }

  refresh(): boolean {
    const before = this.#token;
    this.#read(this.#statStamp());
    return this.#token !== before;
  }

  #statStamp(): string | undefined {
    try {
      const stat = statSync(this.path);
      this.#statFailed = false;
      return `${stat.mtimeMs}:${stat.ino}:${stat.size}`;
    } catch (error) {
      // Mid-swap or unmounted: keep the token we have, say so once.
      if (!this.#statFailed)
        this.logger?.warn(
          { tokenFile: this.path, err: (error as NodeJS.ErrnoException).code ?? "error" },
          "token file unreadable; keeping the token read before",
        );
      this.#statFailed = true;
      return undefined;
    }
  }

  #read(stamp: string | undefined): void {
    let text: string;
    try {
      text = readTokenFile(this.path, "--token-file / SHIPLOG_TOKEN_FILE", true).trim();
    } catch (error) {
      const reason = error instanceof BoundedFileError ? error.rule : ((error as NodeJS.ErrnoException).code ?? "error");
      this.logger?.warn({ tokenFile: this.path, err: reason }, "token file unreadable; keeping the token read before");
      // A file that is there but breaks the rule (a FIFO, a device, too large) is tried again when it changes, not on
      // every call; a missing one (mid-swap) is tried again at once.
      if (stamp !== undefined && error instanceof BoundedFileError && error.rule !== "existing file") this.#stamp = stamp;
      return;
    }
    if (stamp !== undefined) this.#stamp = stamp;
    if (text === "" || /\s/.test(text)) {
      this.logger?.warn({ tokenFile: this.path }, "token file is empty or holds whitespace; keeping the token read before");
      return;
    }
    if (text === this.#token) return;
    this.#token = text;
    this.logger?.info({ tokenFile: this.path }, "API token read again from its file (it changed)");
  }
}
