// The schedule syntax CronJobs accept (robfig/cron's standard parser, as the API server uses it): five fields or
// a descriptor; the error text is the parser's.

interface Bounds {
  min: number;
  max: number;
  names?: string[];
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"];

function parseNumber(text: string, bounds: Bounds): number {
  const named = bounds.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + bounds.min;
  if (!/^-?\d+$/.test(text))
    throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = Number(text);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${text}`);
  return n;
}

function checkRange(expr: string, bounds: Bounds): void {
  const [rangePart, step, ...extraSlash] = expr.split("/");
  if (extraSlash.length > 0) throw new Error(`too many slashes: ${expr}`);
  const ends = rangePart!.split("-");
  if (ends.length > 2) throw new Error(`too many hyphens: ${expr}`);
  let start: number;
  let end: number;
  if (ends[0] === "*" || ends[0] === "?") {
    if (ends.length > 1) throw new Error(`too many hyphens: ${expr}`);
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parseNumber(ends[0]!, bounds);
    end = ends.length === 2 ? parseNumber(ends[1]!, bounds) : start;
  }
  if (step !== undefined) {
    const n = parseNumber(step, bounds);
    if (n <= 0) throw new Error(`step of range should be a positive number: ${expr}`);
  }
  if (start < bounds.min) throw new Error(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new Error(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
}

/** Why a CronJob schedule is not valid, or undefined. */
export function validateCronSchedule(schedule: string): string | undefined {
  if (/TZ/.test(schedule)) return "cannot use TZ or CRON_TZ in schedule, use timeZone field instead";
  const spec = schedule.trim();
  if (spec === "") return "empty spec string";
  if (spec.startsWith("@")) {
    if (DESCRIPTORS.includes(spec)) return undefined;
    if (/^@every \S+$/.test(spec)) return undefined;
    return `unrecognized descriptor: ${spec}`;
  }
  const fields = spec.split(/\s+/);
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`;
  try {
    fields.forEach((field, i) => {
      for (const expr of field.split(",")) checkRange(expr, FIELDS[i]!);
    });
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}
