import type { FastifyReply } from "fastify";

/** Where the emulator's error bodies point, like the service's `documentation_url`. */
export const DOCS_BASE = "https://docs.service.example/rest";

/** A field error in a 422 body, in the service's form. */
export interface ValidationDetail {
  resource: string;
  field: string;
  code: "missing_field" | "invalid" | "already_exists" | "missing" | "custom";
  message?: string;
}

/** Sends the service's error body: `{message, documentation_url}` plus `errors[]` for 422. */
export function sendError(
  reply: FastifyReply,
  status: number,
  message: string | Record<string, unknown>,
  options: { docs?: string; errors?: ValidationDetail[]; headers?: Record<string, string> } = {},
): FastifyReply {
  const body: Record<string, unknown> = { message, documentation_url: `${DOCS_BASE}${options.docs ?? ""}`, status: String(status) };
  if (options.errors) body.errors = options.errors;
  for (const [name, value] of Object.entries(options.headers ?? {})) reply.header(name, value);
  return reply.code(status).send(body);
}
