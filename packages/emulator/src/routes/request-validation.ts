import type { FastifyReply } from "fastify";
import type { z } from "zod";
import { toFieldIssues } from "@shiplog/client";
import { sendError, type ValidationDetail } from "../service-errors.js";

/**
 * Validates a body with the client's wire schema (the one source of truth) and answers 422 with
 * the service's `errors[]` when it fails. Returns undefined after answering.
 */
export function validateBody<S extends z.ZodType>(
  reply: FastifyReply,
  schema: S,
  body: unknown,
  resource: string,
  docs: string,
): z.output<S> | undefined {
  const result = schema.safeParse(body ?? undefined, { reportInput: true });
  if (result.success) return result.data;
  const errors: ValidationDetail[] = toFieldIssues(result.error).map((issue) => ({
    resource,
    field: issue.field,
    code: issue.rule === "required" ? "missing_field" : "invalid",
    message: `${issue.field} ${issue.message} (${issue.rule})`,
  }));
  sendError(reply, 422, "Validation Failed", { errors, docs });
  return undefined;
}
