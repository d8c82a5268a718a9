// Which class stands behind each code the client raises, so that code narrows an error to its class:
// `if (isShiplogError(error, "partial_write")) error.notWritten`, or `switch (error.code)` after `isShiplogError(error)`.
import {
  AbortedError,
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  ForeignUrlError,
  GoneError,
  MarkReadTimeoutError,
  MissingGrantError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  RequestValidationError,
  ResponseValidationError,
  RetiredEndpointError,
  ServiceValidationError,
  ShiplogError,
  TagExistsError,
  TimeoutError,
  TokenTypeRefusedError,
  UnavailableError,
  UnexpectedStatusError,
} from "./errors/errors.js";
import { PartialClusterWriteError } from "./api/partial-write-error.js";
import { CheckpointFileError } from "./pollers/file-checkpoint-store.js";

const CLASSES = {
  invalid_request: RequestValidationError,
  permission_missing: MissingGrantError,
  token_type_refused: TokenTypeRefusedError,
  foreign_url: ForeignUrlError,
  authentication_required: AuthenticationError,
  forbidden: ForbiddenError,
  not_found: NotFoundError,
  conflict: ConflictError,
  gone: GoneError,
  validation_failed: ServiceValidationError,
  rate_limited: RateLimitedError,
  service_unavailable: UnavailableError,
  retired_endpoint: RetiredEndpointError,
  unexpected_status: UnexpectedStatusError,
  invalid_response: ResponseValidationError,
  network_error: NetworkError,
  timeout: TimeoutError,
  aborted: AbortedError,
  tag_exists: TagExistsError,
  mark_read_timeout: MarkReadTimeoutError,
  partial_write: PartialClusterWriteError,
  checkpoint_file: CheckpointFileError,
} as const;

/** The error class behind each code: `ShiplogErrorByCode["partial_write"]` is `PartialClusterWriteError`. */
export type ShiplogErrorByCode = { [C in keyof typeof CLASSES]: InstanceType<(typeof CLASSES)[C]> };

/** Every code the client's errors carry. */
export type ShiplogErrorCode = keyof ShiplogErrorByCode;

/** Any error the client raises; its `code` tells which, and narrows it in a `switch`. */
export type ShiplogClientError = ShiplogErrorByCode[ShiplogErrorCode];

/** Whether `error` is the client's error with that code, as its class (`isShiplogError(error, "not_found")`). */
export function isShiplogError<C extends ShiplogErrorCode>(error: unknown, code: C): error is ShiplogErrorByCode[C];
/** Whether `error` is one the client raises (not another package's ShiplogError): then `switch (error.code)` narrows. */
export function isShiplogError(error: unknown): error is ShiplogClientError;
export function isShiplogError(error: unknown, code?: ShiplogErrorCode): boolean {
  if (!(error instanceof ShiplogError) || !Object.hasOwn(CLASSES, error.code)) return false;
  const own = error.code as ShiplogErrorCode;
  return (code === undefined || code === own) && error instanceof CLASSES[own];
}
