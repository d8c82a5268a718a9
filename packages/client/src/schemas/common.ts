import { z } from "zod";

/** `sha256:` followed by 64 lowercase hex digits: the only digest form the artifact endpoints take. */
export const SHA256_DIGEST_PATTERN = /^sha256:[a-f0-9]{64}$/;

export const sha256Digest = z
  .string()
  .regex(SHA256_DIGEST_PATTERN, { message: "must be sha256: followed by 64 lowercase hex digits" });

/** Names of organizations, owners and repositories as path segments. */
export const ownerName = z.string().min(1).max(100).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, {
  message: "must be letters, digits, '.', '-' or '_'",
});

/** Repository name within an organization (`github_repository` in the artifact bodies). */
export const repositoryName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9.\-_]+$/, { message: "must be letters, digits, '.', '-' or '_'" });

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
