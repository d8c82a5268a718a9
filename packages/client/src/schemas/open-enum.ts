import { z } from "zod";
import type { OpenEnum } from "../model/open-enum.js";

export { isKnownValue, type OpenEnum, type UnknownValue } from "../model/open-enum.js";

/** A response field of an open enumeration: any string parses; the type names the known values. */
export function openEnum<const Known extends string>(_known: readonly Known[]): z.ZodType<OpenEnum<Known>, string> {
  return z.string() as unknown as z.ZodType<OpenEnum<Known>, string>;
}
