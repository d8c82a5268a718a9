import { open, readFile, readdir, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ShiplogError } from "../errors/errors.js";
import type { CheckpointStore, PollCheckpoint } from "./checkpoint.js";

/** A checkpoint file that cannot be read or written (unreadable, not JSON, or the directory is missing). */
export class CheckpointFileError extends ShiplogError {
  declare readonly code: "checkpoint_file";
  readonly path: string;

  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super("checkpoint_file", `poller checkpoint ${path}: ${reason}`, options);
    this.path = path;
  }
}

/**
 * Keeps a poller's checkpoint in one JSON file. Each save writes a temporary file beside it, flushes it to disk
 * and renames it over the old one, so a crash (even `kill -9`) at any instant leaves either the previous
 * checkpoint or the new one, never a torn file.
 */
export class FileCheckpointStore implements CheckpointStore {
  readonly path: string;
  #sequence = 0;

  constructor(path: string) {
    this.path = path;
  }

  async load(): Promise<PollCheckpoint | undefined> {
    await this.#removeLeftovers();
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new CheckpointFileError(this.path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`, { cause: error });
    }
    try {
      // The poller checks the shape: a checkpoint of another listing or version is refused there, by field.
      return JSON.parse(text) as PollCheckpoint;
    } catch (error) {
      throw new CheckpointFileError(this.path, "is not JSON (delete it to start over)", { cause: error });
    }
  }

  async save(checkpoint: PollCheckpoint): Promise<void> {
    const temporary = join(dirname(this.path), `${this.#temporaryPrefix}${process.pid}.${++this.#sequence}.tmp`);
    try {
      const file = await open(temporary, "w", 0o600);
      try {
        await file.writeFile(JSON.stringify(checkpoint));
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, this.path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw new CheckpointFileError(this.path, `cannot be written (${(error as NodeJS.ErrnoException).code ?? "error"})`, { cause: error });
    }
  }

  get #temporaryPrefix(): string {
    return `.${basename(this.path)}.`;
  }

  /** Temporary files a process killed in the middle of a save left behind (never the current process's). */
  async #removeLeftovers(): Promise<void> {
    const own = `${this.#temporaryPrefix}${process.pid}.`;
    const names = await readdir(dirname(this.path)).catch(() => [] as string[]);
    for (const name of names) {
      if (name.startsWith(this.#temporaryPrefix) && name.endsWith(".tmp") && !name.startsWith(own)) {
        await unlink(join(dirname(this.path), name)).catch(() => undefined);
      }
    }
  }
}
