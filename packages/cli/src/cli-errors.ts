import {
  AuthenticationError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  RequestValidationError,
  ServiceError,
  ShiplogError,
  TimeoutError,
  UnavailableError,
  UnexpectedStatusError,
} from "@shiplog/client";
import { EXIT, type ExitCode } from "./exit-codes.js";

/** A mistake on the command line (or in a file it names): one line, exit 2, nothing sent. */
export class UsageError extends ShiplogError {
  constructor(message: string) {
    super("usage", message);
  }
}

/** The exit code an error ends the command with. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof UsageError || error instanceof RequestValidationError) return EXIT.usage;
  if (error instanceof AuthenticationError) return EXIT.auth;
  if (error instanceof NotFoundError) return EXIT.notFound;
  if (error instanceof RateLimitedError || error instanceof UnavailableError || error instanceof UnexpectedStatusError) return EXIT.unavailable;
  if (error instanceof NetworkError || error instanceof TimeoutError) return EXIT.unavailable;
  if (error instanceof ServiceError) return EXIT.refused;
  return EXIT.refused;
}

/** The error as one line: what went wrong and, where the client knows it, what to change. */
export function oneLine(error: unknown): string {
  if (error instanceof RequestValidationError) {
    return error.issues.map((i) => `${i.field}: ${i.message}`).join("; ");
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AuthenticationError) return `${message.split("\n")[0]} (the token comes from SHIPLOG_TOKEN or --token-file)`;
  return message.split("\n").map((part) => part.trim()).filter(Boolean).join("; ");
}
