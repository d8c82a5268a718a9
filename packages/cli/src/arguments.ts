import { InvalidArgumentError } from "commander";
import { SHA256_DIGEST_PATTERN } from "@shiplog/client";

/** `owner/repo`, as gh takes it. */
export function ownerRepo(value: string): { owner: string; repo: string } {
  const match = /^([^/\s]+)\/([^/\s]+)$/.exec(value);
  if (!match) throw new InvalidArgumentError(`expected owner/repo (acme/web), got ${JSON.stringify(value)}`);
  return { owner: match[1]!, repo: match[2]! };
}

/** A sha256 digest as the service takes it; a bare 64-hex value gets its `sha256:` prefix. */
export function digest(value: string): string {
  const withPrefix = /^[0-9a-f]{64}$/.test(value) ? `sha256:${value}` : value;
  if (!SHA256_DIGEST_PATTERN.test(withPrefix)) {
    throw new InvalidArgumentError(`expected sha256:<64 lowercase hex digits>, got ${JSON.stringify(value)}`);
  }
  return withPrefix;
}

/** A positive whole number (a thread id). */
export function positiveInteger(value: string): number {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError(`expected a positive whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}
