// The building blocks of the server-side printers' columns (table-printers.ts): a column's definition, the name
// and age columns every kind shows, and the API server's ways of printing durations and missing values.
import type { KubeObject } from "./kube-object.js";
import type { ObjectOf } from "./object-kinds.js";
import type { ResourceName } from "./resource-kinds.js";

/** One column of a Table: its definition as columnDefinitions list it, and how a row's cell is printed. */
export interface Column<T extends KubeObject = KubeObject> {
  name: string;
  type: "string" | "integer" | "date";
  format?: "name";
  description: string;
  priority: number;
  cell: (obj: T, now: number) => string | number;
}

/** The columns of each resource that has its own printer. */
export type ColumnsByResource = { [R in ResourceName]?: Column<ObjectOf<R>>[] };

/** duration.HumanDuration: "45s", "3m20s", "12m", "5h30m", "3d4h", "2y". */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${Math.floor(days / 365)}y` : `${Math.floor(days / 365)}y${days % 365}d`;
  return `${Math.floor(days / 365)}y`;
}

/** How long ago `time` was, as HumanDuration prints it. */
export const since = (time: string | undefined, now: number) => (time ? humanDuration(now - Date.parse(time)) : "<unknown>");
/** The API server's printing of a value that is not there. */
export const orNone = (text: string | undefined) => (text ? text : "<none>");

/** The NAME column. */
export const name: Column = {
  name: "Name",
  type: "string",
  format: "name",
  description: "Name must be unique within a namespace.",
  priority: 0,
  cell: (o) => o.metadata.name!,
};
/** The AGE column. */
export const age: Column = {
  name: "Age",
  type: "string",
  description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
  priority: 0,
  cell: (o, now) => since(o.metadata.creationTimestamp, now),
};
