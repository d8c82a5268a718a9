// apimachinery's field.Error, as the API server words it: each error names a field path, a reason for
// `details.causes[].reason`, and a message ("Invalid value: <value>: <detail>", "Required value", ...).

/** One field problem of an object, as in `details.causes[]` of a 422 Invalid Status. */
export interface FieldError {
  reason:
    | "FieldValueInvalid"
    | "FieldValueRequired"
    | "FieldValueNotSupported"
    | "FieldValueForbidden"
    | "FieldValueTooLong"
    | "FieldValueDuplicate";
  field: string;
  message: string;
}

/** A bad value as the server prints it since 1.31: strings quoted, numbers bare, maps and lists as JSON. */
export function showValue(value: unknown): string {
  return typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value ?? null);
}

/** field.Invalid */
export function invalidValue(field: string, value: unknown, detail: string): FieldError {
  return { reason: "FieldValueInvalid", field, message: `Invalid value: ${showValue(value)}: ${detail}` };
}

/** field.Required */
export function required(field: string, detail = ""): FieldError {
  return { reason: "FieldValueRequired", field, message: detail ? `Required value: ${detail}` : "Required value" };
}

/** field.NotSupported */
export function notSupported(field: string, value: unknown, supported: string[]): FieldError {
  const list = supported.map((s) => JSON.stringify(s)).join(", ");
  return { reason: "FieldValueNotSupported", field, message: `Unsupported value: ${showValue(value)}: supported values: ${list}` };
}

/** field.Forbidden */
export function forbidden(field: string, detail: string): FieldError {
  return { reason: "FieldValueForbidden", field, message: `Forbidden: ${detail}` };
}

/** field.TooLong (byte sizes; "must have at most" is field.TooMany's, for items) */
export function tooLong(field: string, maxBytes: number): FieldError {
  return { reason: "FieldValueTooLong", field, message: `Too long: may not be more than ${maxBytes} bytes` };
}

/** field.Duplicate */
export function duplicate(field: string, value: unknown): FieldError {
  return { reason: "FieldValueDuplicate", field, message: `Duplicate value: ${showValue(value)}` };
}

/** The field error every immutable field gets on update. */
export function immutable(field: string, value: unknown): FieldError {
  return invalidValue(field, value, "field is immutable");
}
