import { z } from "zod";

/**
 * A value the service sent that this client does not know: an enumeration the service extended after this
 * release. It is kept exactly as received and passed on, never refused; compare it as a string.
 */
export type UnknownValue = string & { readonly __unknownEnumValue?: never };

/**
 * An enumeration the service may extend (a reason, a status, a type): one of the `Known` values, typed, or an
 * `UnknownValue` from a newer service. Narrow with `===` or with `isKnownValue`.
 */
export type OpenEnum<Known extends string> = Known | UnknownValue;

/** A response field of an open enumeration: any string parses; the type names the known values. */
export function openEnum<const Known extends string>(_known: readonly Known[]): z.ZodType<OpenEnum<Known>, string> {
  return z.string() as unknown as z.ZodType<OpenEnum<Known>, string>;
}

/** Whether `value` is one of `known` (then typed as such), rather than a value this client does not know yet. */
export function isKnownValue<const Known extends string>(known: readonly Known[], value: string | null | undefined): value is Known {
  return value !== null && value !== undefined && (known as readonly string[]).includes(value);
}
