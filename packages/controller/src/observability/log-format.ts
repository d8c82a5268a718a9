// The log's format (--log-format): pino's JSON lines as they are, for a log collector, or each turned into one line
// a person reads in `kubectl logs`: time, level, message, then key=value (a value JSON-quoted when it holds a space, a
// quote or an `=`, objects as JSON). pino has redacted the secrets before either sees the line.
import { pino } from "pino";

/** How the controller writes its log. */
export type LogFormat = "json" | "text";

/** Something pino writes its serialized lines to. */
export interface LogDestination {
  write(line: string): void;
}

/** A field's value as text: bare when it needs no quoting, else JSON. */
function valueText(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

/** One pino line (parsed) as the text format's line, without its line break. */
export function textLine(entry: Record<string, unknown>): string {
  const { time, level, msg, component: _component, ...fields } = entry;
  const when = typeof time === "number" ? new Date(time).toISOString() : String(time ?? "");
  const label = (typeof level === "number" ? pino.levels.labels[level] : undefined) ?? String(level);
  const parts = [when, label.toUpperCase().padEnd(5), ...(msg === undefined ? [] : [String(msg)])];
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) parts.push(`${key}=${valueText(value)}`);
  return parts.join(" ");
}

/** Where pino writes in `format`: `out` (default: stdout, as pino writes by default) as is (json), or through textLine. */
export function logDestination(format: LogFormat, out: LogDestination = pino.destination(1)): LogDestination {
  if (format === "json") return out;
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        // Not one of pino's lines: written as it came rather than lost.
        out.write(line);
        return;
      }
      out.write(`${textLine(entry)}\n`);
    },
  };
}
