// What every call and every list takes besides its parameters: apart from the registry, so that the API's
// declarations name no schema.

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call (and its retries); it then fails with an AbortedError. */
  signal?: AbortSignal;
}

/** Options of a list: its pages, and a signal. */
export interface PageOptions {
  /** Items per page; checked against the endpoint's maximum before anything is sent. */
  per_page?: number;
  /** First page to fetch. Default 1. */
  page?: number;
  signal?: AbortSignal;
}
