/** API versions the service accepts in `X-Service-Api-Version` (spec section 9). */
export const API_VERSIONS = ["2026-03-10", "2022-11-28"] as const;

export type ApiVersion = (typeof API_VERSIONS)[number];

/** The version the client sends unless told otherwise. */
export const DEFAULT_API_VERSION: ApiVersion = "2026-03-10";

/** The public API the client talks to unless given another base URL. */
export const DEFAULT_BASE_URL = "https://api.github.com";

/** The media type every request asks for. */
export const SERVICE_MEDIA_TYPE = "application/vnd.service+json";
