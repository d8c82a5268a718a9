import { RequestValidationError } from "../errors/errors.js";
import { expandTemplate } from "../transport/path-templates.js";
import { pollCheckpoint } from "../schemas/poll-checkpoint.js";
import { parseRequest } from "../schemas/validation.js";

/**
 * Where a poller stands, as plain JSON, so a caller can keep it anywhere (a file, a database row, a ConfigMap)
 * and start a poller again from it: the first poll is then conditional, and nothing yielded before comes again.
 */
export interface PollCheckpoint {
  /** Format version. */
  version: 1;
  /** The listing followed, e.g. `GET /orgs/acme/events`: a checkpoint only resumes a poller of the same listing. */
  listing: string;
  /** The `ETag` (feeds, issue events) or `Last-Modified` (notifications) of the last poll whose items were all yielded. */
  validator?: string;
  /**
   * Items yielded that the listing can still show, yielded longest ago first: `[id, time]`, the time being the
   * event's `created_at` or the thread's `updated_at` (a thread updated again is yielded again).
   */
  seen: [string, string | null][];
  /** Notifications: the `since` the next poll asks with (threads updated before it are not listed again). */
  since?: string;
}

/** Somewhere a poller's checkpoint is kept between runs. */
export interface CheckpointStore {
  /** The checkpoint saved last, or undefined when none was saved yet. */
  load(): Promise<PollCheckpoint | undefined>;
  /** Replaces the saved checkpoint; when it resolves the checkpoint survives a crash. */
  save(checkpoint: PollCheckpoint): Promise<void>;
}

/** Checks a checkpoint a caller hands in; refuses one of another listing (it would skip or repeat items). */
export function checkCheckpoint(checkpoint: unknown, listing: string, where: string): PollCheckpoint {
  const parsed = parseRequest(pollCheckpoint, checkpoint, where) as PollCheckpoint;
  if (parsed.listing !== listing) {
    throw new RequestValidationError(where, [
      {
        field: "checkpoint.listing",
        rule: "same listing",
        message: `is ${JSON.stringify(parsed.listing)}, but this poller follows ${JSON.stringify(listing)}`,
      },
    ]);
  }
  return parsed;
}

/** The listing name of a route: `GET` and the path with its parameters filled in, then any filters. */
export function listingName(route: string, params: Record<string, string | number> = {}, filters: Record<string, unknown> = {}): string {
  const path = expandTemplate(route, (name) => String(params[name] ?? ""));
  const query = Object.entries(filters)
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join("&");
  return `GET ${path}${query ? `?${query}` : ""}`;
}
