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

/** Whether `value` is one of `known` (then typed as such), rather than a value this client does not know yet. */
export function isKnownValue<const Known extends string>(known: readonly Known[], value: string | null | undefined): value is Known {
  return value !== null && value !== undefined && (known as readonly string[]).includes(value);
}

/**
 * The `type` of an activity event this client does not type (`ForkEvent`, say): the name the service sent, kept
 * as received. Declared apart from every typed name, so that `event.type === "PushEvent"` narrows an event to
 * `PushEvent` and its payload; compare an untyped name as a string: `String(event.type) === "ForkEvent"`.
 */
export type UnknownEventType = `${string}\u0000`;
