import { z } from "zod";
import { SHA256_DIGEST_PATTERN } from "../model/values.js";
export { SHA256_DIGEST_PATTERN } from "../model/values.js";

export const sha256Digest = z.string().regex(SHA256_DIGEST_PATTERN, { message: "must be sha256: followed by 64 lowercase hex digits" });

/** Names of organizations, users and other owners as path segments: they start with a letter or digit. */
export const ownerName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
    message: "must start with a letter or digit, then letters, digits, '.', '-' or '_'",
  });

/**
 * A repository name, as a path segment or as `github_repository` in the artifact bodies. The service allows a
 * leading `.` (`.github`), but not `.` or `..` alone, which a URL would read as a path step.
 */
export const repositoryName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^(?!\.\.?$)[A-Za-z0-9._-]+$/, { message: "must be letters, digits, '.', '-' or '_' (not . or ..)" });

/** A numeric id on a path (a thread, an issue, an event): a positive integer, or its digits as a string. */
export const positiveId = z.union([z.number().int().positive(), z.string().regex(/^[1-9][0-9]*$/)], {
  message: "must be a positive integer (a number, or its digits as a string)",
});

/** An ISO 8601 timestamp as the service sends it. */
export const timestamp = z.string();

/** The error body every non-2xx answer carries. */
export const serviceErrorBody = z.looseObject({
  message: z.union([z.string(), z.record(z.string(), z.unknown())]),
  documentation_url: z.string().optional(),
  errors: z
    .array(
      z.looseObject({
        resource: z.string().optional(),
        field: z.string().optional(),
        code: z.string().optional(),
        message: z.string().optional(),
      }),
    )
    .optional(),
  status: z.string().optional(),
});
export type ServiceErrorBody = z.infer<typeof serviceErrorBody>;
