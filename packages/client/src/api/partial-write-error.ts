// A call the client split into several requests, of which some were written before one failed.
import { ServiceError, ShiplogError } from "../errors/errors.js";
import type { ClusterDeploymentEntry, ClusterDeploymentResult } from "../model/artifact-metadata.js";

/** Where the failed chunk stands: `refused` (the service answered an error) or `unknown` (no usable answer). */
export type FailedChunkOutcome = "refused" | "unknown";

export interface PartialClusterWriteDetails {
  operation: string;
  /** The merged answers of the chunks the service accepted. */
  written: ClusterDeploymentResult;
  /** How many entries those chunks held. */
  writtenEntries: number;
  /** The entries of the failed chunk and of every chunk after it (not sent), in the caller's order. */
  notWritten: ClusterDeploymentEntry[];
  /** The failed chunk: its position (from 0), its first entry's index in the caller's list, and its size. */
  failedChunk: { index: number; start: number; count: number; outcome: FailedChunkOutcome };
  chunkCount: number;
  /** Why the chunk failed. */
  cause: unknown;
}

/**
 * A cluster call of more than 1000 entries failed after some chunks were written: those records are stored, the
 * others are not (`notWritten`). A refused chunk changed nothing; after a timeout or a lost connection
 * (`failedChunk.outcome` `unknown`) it may have. Every chunk is an upsert: sending `notWritten` again is safe.
 */
export class PartialClusterWriteError extends ShiplogError {
  declare readonly code: "partial_write";
  readonly written: ClusterDeploymentResult;
  readonly writtenEntries: number;
  readonly notWritten: readonly ClusterDeploymentEntry[];
  readonly failedChunk: PartialClusterWriteDetails["failedChunk"];
  readonly chunkCount: number;

  constructor(details: PartialClusterWriteDetails) {
    const { failedChunk: chunk, cause } = details;
    const reason =
      cause instanceof ShiplogError ? `${cause.code}: ${cause.message}` : cause instanceof Error ? cause.message : String(cause);
    super(
      "partial_write",
      `${details.operation}: chunk ${chunk.index + 1} of ${details.chunkCount} (entries ${chunk.start} to ${chunk.start + chunk.count - 1}) ` +
        `${chunk.outcome === "refused" ? "was refused" : "got no usable answer"}; ${details.writtenEntries} entries were written before it, ` +
        `${details.notWritten.length} were not${chunk.outcome === "unknown" ? " (the failed chunk's may have been)" : ""}. ${reason}`,
      { cause },
    );
    this.written = details.written;
    this.writtenEntries = details.writtenEntries;
    this.notWritten = details.notWritten;
    this.failedChunk = chunk;
    this.chunkCount = details.chunkCount;
  }

  /** The outcome of a chunk whose request failed with `error`. */
  static outcomeOf(error: unknown): FailedChunkOutcome {
    return error instanceof ServiceError ? "refused" : "unknown";
  }

  /** Counts, not the entries (which may be thousands), and the failed chunk's error. */
  override toJSON(): Record<string, unknown> {
    const cause = this.cause instanceof ShiplogError ? this.cause.toJSON() : undefined;
    return {
      ...super.toJSON(),
      writtenEntries: this.writtenEntries,
      writtenRecords: this.written.total_count,
      notWrittenEntries: this.notWritten.length,
      failedChunk: this.failedChunk,
      chunkCount: this.chunkCount,
      cause,
    };
  }
}
