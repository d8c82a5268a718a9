// The metric names the chart's alerts and dashboard may read: the controller's own, plus the few other branches add.
import { ControllerMetrics } from "@shiplog/controller";

/** Metrics the alerts and the dashboard may read that the controller's registry does not list when idle. */
export const ASSUMED_METRICS: Record<string, string> = {};

/** The controller's series names (a histogram's _bucket, _sum and _count) plus ASSUMED_METRICS. */
export async function readableMetricNames(): Promise<Set<string>> {
  const metrics = await new ControllerMetrics().registry.getMetricsAsJSON();
  const names = new Set(Object.keys(ASSUMED_METRICS));
  for (const m of metrics) {
    names.add(m.name);
    if (String(m.type) === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(`${m.name}${suffix}`);
  }
  return names;
}

/** The shiplog metric names a PromQL expression reads. */
export function metricsIn(expr: string): string[] {
  return [...new Set(expr.match(/\bshiplog_controller_[a-z_]+\b/g) ?? [])];
}
