// Secrets out of text that came from elsewhere: a server or a proxy may echo the Authorization header in an error
// page, and that text would otherwise travel on in an error's message, stack, JSON and inspect output.

const REDACTED = "[redacted]";

/** An Authorization value in any text: the scheme stays, the credentials go. */
const AUTHORIZATION_VALUE = /\b(Bearer|Basic)(\s+|%20|\+)[A-Za-z0-9\-._~+/%]{8,}=*/gi;

/** Token prefixes that say what a token is (`ghp_`, `ghs_`, `github_pat_`...): lowercase letters and an underscore. */
const TOKEN_PREFIX = /^([a-z]{2,12}_(?:[a-z]{2,12}_)?)[A-Za-z0-9_]{16,}$/;

/**
 * The patterns that find the given secrets in text: each secret itself and as URL, base64 and JSON encodings would
 * show it, and anything shaped like it (its type prefix followed by at least 16 token characters, so an older or
 * truncated token of the same kind is found too), plus any `Bearer`/`Basic` credentials.
 */
function secretPatterns(secrets: readonly (string | undefined)[]): RegExp[] {
  const literals = new Set<string>();
  const shapes = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    literals.add(secret);
    literals.add(encodeURIComponent(secret));
    literals.add(JSON.stringify(secret).slice(1, -1));
    literals.add(Buffer.from(secret).toString("base64").replace(/=+$/, ""));
    const prefix = TOKEN_PREFIX.exec(secret)?.[1];
    if (prefix) shapes.add(`${escapeRegExp(prefix)}[A-Za-z0-9_]{16,}`);
  }
  const patterns = [AUTHORIZATION_VALUE];
  // Longest first, so that an encoding containing another is replaced whole.
  const alternatives = [...literals].sort((a, b) => b.length - a.length).map(escapeRegExp);
  if (alternatives.length > 0) patterns.push(new RegExp(alternatives.join("|"), "g"));
  for (const shape of shapes) patterns.push(new RegExp(`\\b${shape}`, "g"));
  return patterns;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The text without the secrets or anything shaped like them (see `secretPatterns`). */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  return redactWith(text, secretPatterns(secrets));
}

function redactWith(text: string, patterns: readonly RegExp[]): string {
  let out = text;
  for (const pattern of patterns) {
    out = out.replace(pattern, (_match, scheme?: string, space?: string) =>
      pattern === AUTHORIZATION_VALUE ? `${scheme}${space}${REDACTED}` : REDACTED,
    );
  }
  return out;
}

/** A copy of a JSON-like value (a parsed error body) with every string redacted. */
export function redactValue<T>(value: T, secrets: readonly (string | undefined)[]): T {
  return redactDeep(value, secretPatterns(secrets), new WeakMap()) as T;
}

function redactDeep(value: unknown, patterns: readonly RegExp[], seen: WeakMap<object, unknown>): unknown {
  if (typeof value === "string") return redactWith(value, patterns);
  if (value === null || typeof value !== "object") return value;
  if (seen.has(value)) return seen.get(value);
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(redactDeep(item, patterns, seen));
    return copy;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const copy: Record<string, unknown> = {};
  seen.set(value, copy);
  for (const [key, item] of Object.entries(value)) copy[key] = redactDeep(item, patterns, seen);
  return copy;
}

/**
 * Redacts an error in place, whatever its class: its message, its stack and every own property holding text or
 * JSON-like data (the service's message, the parsed body, a request id). Returns the same error.
 */
export function redactError<E extends Error>(error: E, secrets: readonly (string | undefined)[]): E {
  const patterns = secretPatterns(secrets);
  const seen = new WeakMap<object, unknown>();
  // V8 may keep the stack behind an accessor: assigned, not redefined.
  if (typeof error.stack === "string") error.stack = redactWith(error.stack, patterns);
  for (const key of Object.getOwnPropertyNames(error)) {
    const descriptor = Object.getOwnPropertyDescriptor(error, key);
    if (!descriptor || !("value" in descriptor) || key === "cause" || key === "stack") continue;
    const redacted = redactDeep(descriptor.value, patterns, seen);
    if (redacted !== descriptor.value) Object.defineProperty(error, key, { ...descriptor, value: redacted });
  }
  return error;
}
