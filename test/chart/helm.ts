// The chart through real Helm: `helm template`, `helm lint` and `helm install --dry-run=client` (for NOTES.txt), run
// with the Helm of the real-cluster toolset (test/cluster/tools.ts), each with its own empty Helm home.
import { spawnSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";
import { clusterTools } from "../cluster/tools.js";
import { tempDir } from "../kit/temp-dir.js";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, "../..");
export const CHART_DIR = join(REPO_ROOT, "charts/shiplog-controller");

/** What `helm template` printed: the documents, or the error. */
export interface RenderResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  /** Every non-empty document, parsed. */
  manifests: Manifest[];
}

/** A rendered Kubernetes object, with the template file it came from. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  source: string;
  [field: string]: unknown;
}

/** Options of one render. */
export interface RenderOptions {
  /** Values objects, applied in order over values.yaml (like repeated -f). */
  values?: object[];
  /** Values files, applied before `values`. */
  valueFiles?: string[];
  releaseName?: string;
  namespace?: string;
  apiVersions?: string[];
  /** Print the rendered NOTES.txt (through `helm install --dry-run=client`) instead of the manifests. */
  notes?: boolean;
  /** Another chart folder (a modified copy), instead of charts/shiplog-controller. */
  chartDir?: string;
}

/** Runs the toolset's helm with an empty Helm home; fails with a one-line reason when the toolset is not built. */
export function runHelm(
  args: readonly string[],
  options: { cwd?: string } = {},
): { status: number | null; stdout: string; stderr: string } {
  const home = tempDir("shiplog-helm-home-");
  try {
    const run = spawnSync(clusterTools({ build: false }).helm, args, {
      encoding: "utf8",
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env: { PATH: process.env.PATH, HOME: home, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home },
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Renders the chart with `helm template` (or its NOTES.txt with `helm install --dry-run=client`). */
export function renderChart(options: RenderOptions = {}): RenderResult {
  const dir = tempDir("shiplog-chart-");
  try {
    const files = [...(options.valueFiles ?? [])];
    (options.values ?? []).forEach((values, i) => {
      const file = join(dir, `values-${i}.yaml`);
      writeFileSync(file, stringify(values));
      files.push(file);
    });
    const release = options.releaseName ?? "shiplog";
    const chart = options.chartDir ?? CHART_DIR;
    const args = options.notes ? ["install", "--dry-run=client", release, chart] : ["template", release, chart];
    args.push("--namespace", options.namespace ?? "shiplog");
    for (const file of files) args.push("-f", file);
    for (const version of options.apiVersions ?? []) args.push("--api-versions", version);
    const result = runHelm(args);
    const ok = result.status === 0;
    if (options.notes) {
      const notes = ok ? result.stdout.slice(result.stdout.indexOf("NOTES:\n") + "NOTES:\n".length) : "";
      return { ok, stdout: notes, stderr: result.stderr, manifests: [] };
    }
    const manifests: Manifest[] = [];
    if (ok) {
      for (const doc of parseAllDocuments(result.stdout)) {
        if (doc.errors.length > 0) throw new Error(`rendered YAML does not parse: ${doc.errors[0]!.message}`);
        const value = doc.toJS() as Omit<Manifest, "source"> | null;
        if (value === null) continue;
        const source = sourceOf(doc.commentBefore) || sourceOf(doc.contents?.commentBefore);
        manifests.push({ ...value, source } as Manifest);
      }
    }
    return { ok, stdout: result.stdout, stderr: result.stderr, manifests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sourceOf(comment: string | null | undefined): string {
  return /Source: (\S+)/.exec(comment ?? "")?.[1] ?? "";
}

/** The PrometheusRule the chart renders with its default values (rules on), for files/prometheus-rules.yaml. */
export function renderDefaultPrometheusRule(): Manifest & { spec: { groups: unknown[] } } {
  const result = renderChart({
    values: [{ config: { org: "o", cluster: "c", logicalEnvironment: "l" }, token: { value: "t" }, prometheusRule: { enabled: true } }],
    apiVersions: ["monitoring.coreos.com/v1"],
  });
  if (!result.ok) throw new Error(result.stderr);
  const rule = result.manifests.find((m) => m.kind === "PrometheusRule");
  if (!rule) throw new Error("the chart rendered no PrometheusRule with prometheusRule.enabled");
  return rule as Manifest & { spec: { groups: unknown[] } };
}
