import { z } from "zod";

/** A poller's checkpoint (PollCheckpoint), as a caller hands it back: checked before a poller resumes from it. */
export const pollCheckpoint = z.strictObject({
  version: z.literal(1),
  listing: z.string().min(1),
  validator: z.string().optional(),
  seen: z.array(z.tuple([z.string(), z.string().nullable()])),
  since: z.string().optional(),
});
