// What several commands share: the organization, --limit, dates as tables print them, and the count line on stderr.
import { Option } from "commander";
import { positiveInteger } from "../arguments.js";
import { UsageError } from "../cli-errors.js";
import type { CommandContext } from "../program.js";

/** The organization: --org, else SHIPLOG_ORG. */
export function orgOf(options: { org?: string }, ctx: CommandContext): string {
  const org = options.org ?? ctx.env.SHIPLOG_ORG;
  if (!org) throw new UsageError("--org is required (or set SHIPLOG_ORG): the organization whose records to read or write");
  return org;
}

export const orgOption = () => new Option("--org <org>", "the organization (default: SHIPLOG_ORG)");
export const date = (value: unknown) => (typeof value === "string" ? value.replace(/\.\d+Z$/, "Z") : "");

/** The most a listing prints unless told otherwise, as gh's lists do. */
export const DEFAULT_LIMIT = 30;

/** `-L, --limit <n>`: the most items a listing prints (default 30). */
export const limitOption = (what: string) =>
  new Option("-L, --limit <n>", `the most ${what} to print`).argParser(positiveInteger).default(DEFAULT_LIMIT);

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** The stderr line after a listing: how many, of what, and whether --limit left some out. */
export function countLine(shown: number, matching: number, noun: string, of?: string): string {
  const what = of ? ` of ${of}` : "";
  if (shown === matching) return `${plural(matching, noun)}${what}\n`;
  return `${shown} of ${plural(matching, noun)}${what} (--limit ${matching} to see all)\n`;
}
