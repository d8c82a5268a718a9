import {
  AuthenticationError,
  NetworkError,
  NotFoundError,
  PartialClusterWriteError,
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
  if (error instanceof PartialClusterWriteError) return exitCodeOf(error.cause);
  if (error instanceof UsageError || error instanceof RequestValidationError) return EXIT.usage;
  if (error instanceof AuthenticationError) return EXIT.auth;
  if (error instanceof NotFoundError) return EXIT.notFound;
  const unanswered = [RateLimitedError, UnavailableError, UnexpectedStatusError, NetworkError, TimeoutError];
  if (unanswered.some((kind) => error instanceof kind)) return EXIT.unavailable;
  if (error instanceof ServiceError) return EXIT.refused;
  return EXIT.refused;
}

/** What the command's client was made with, as the messages need it. */
export interface FailureContext {
  credentials: "token" | "app" | "none";
  scope: { org?: string; subject?: string };
}

const INSTALLATION_LOOKUP = "/orgs/{org}/installation";
const TOKEN_EXCHANGE = "/app/installations/{installation_id}/access_tokens";

/** What to change after a 401, by how the command authenticated. */
function authenticationHint(error: AuthenticationError, context: FailureContext | undefined): string {
  if (context?.credentials === "app") {
    return error.route === INSTALLATION_LOOKUP || error.route === TOKEN_EXCHANGE
      ? "the App's signed JWT was refused: check --app-id, and that --app-private-key-file holds that App's current key"
      : "the App's installation token was refused";
  }
  if (context?.credentials === "none") {
    return "no credentials were given: set SHIPLOG_TOKEN or --token-file, or --app-id with --app-private-key-file";
  }
  return "check the token (SHIPLOG_TOKEN or --token-file): it may be mistyped, expired or revoked";
}

/** What may not exist after a 404: the App's installation, or what the command named. */
function notFoundHint(error: NotFoundError, context: FailureContext | undefined): string | undefined {
  if (context?.credentials === "app" && error.route === INSTALLATION_LOOKUP) {
    return `the App is not installed on organization ${context.scope.org ?? ""}: install it there, or give --app-installation-id`;
  }
  if (context?.credentials === "app" && error.route === TOKEN_EXCHANGE) {
    return "the App has no such installation: check --app-installation-id";
  }
  return context?.scope.subject && `${context.scope.subject} does not exist, or the credentials cannot see it`;
}

/** The error as one line: what went wrong and, where it is known, what to change. */
export function oneLine(error: unknown, context?: FailureContext): string {
  if (error instanceof RequestValidationError) {
    return error.issues.map((i) => `${i.field}: ${i.message}`).join("; ");
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AuthenticationError) {
    // The client's own hint speaks of a token; the CLI knows which credentials it sent.
    return `${error.method} ${error.route} answered 401: ${error.serviceMessage.replace(/\.$/, "")}: ${authenticationHint(error, context)}`;
  }
  if (error instanceof PartialClusterWriteError) {
    const written =
      error.failedChunk.outcome === "refused"
        ? "the written entries are upserts: running the command again after fixing the cause rewrites them harmlessly"
        : "running the command again is safe: the written entries are upserts";
    return `${message.replace(/\s*\n\s*/g, "; ").replace(/\.?$/, "")}; ${written}`;
  }
  const line = message
    .split("\n")
    .map((part) => part.trim())
    .filter(Boolean)
    .join("; ");
  const hint = error instanceof NotFoundError ? notFoundHint(error, context) : undefined;
  return hint ? `${line}: ${hint}` : line;
}
