/**
 * The two helpers ajv's standalone validators call at run time (src/generated/request-validators.ts), so the
 * emulator needs neither ajv nor the OpenAPI description when it runs.
 */

/** String length in code points, as JSON Schema's minLength/maxLength count (ajv's ucs2length). */
export function ucs2length(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}

/** Structural equality of JSON values (for `uniqueItems` and `enum` over objects). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((k) => Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
