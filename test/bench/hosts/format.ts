// How the controller benchmark prints its figures.
import { readFileSync } from "node:fs";

/** Milliseconds as seconds. */
export const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** Bytes as megabytes. */
export const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(0)} MB`;

/** The `p`th percentile of `xs` (nearest rank). */
export function pct(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** The machine's load average (1, 5, 15 minutes). */
export const loadavg = (): string => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
