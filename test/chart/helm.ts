// Builds and runs test/chart/renderer (Go text/template + sprig, like Helm's engine) to render the chart.
// No helm binary exists for our machines; the renderer is built from Debian's Go toolchain and libraries.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments, stringify } from "yaml";
import { tempDir } from "../kit/temp-dir.js";

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(here, "../..");
export const CHART_DIR = join(REPO_ROOT, "charts/shiplog-controller");
const SOURCE_DIR = join(here, "renderer");
const GOPATH = "/usr/share/gocode";
const CACHE_DIR = join(REPO_ROOT, "node_modules/.cache/shiplog-helm-renderer");

/** The Debian packages the renderer is built from. */
export const DEBIAN_PACKAGES = [
  "golang-go",
  "golang-github-masterminds-sprig-dev",
  "golang-gopkg-yaml.v3-dev",
  "golang-github-xeipuuv-gojsonschema-dev",
];
const GO_LIBRARIES = ["github.com/Masterminds/sprig", "gopkg.in/yaml.v3", "github.com/xeipuuv/gojsonschema"];

/** Whether the Go toolchain and libraries are installed, and if not, what is missing. */
export function findToolchain(): { ok: true; go: string } | { ok: false; reason: string } {
  const go = ["go", "/usr/lib/go/bin/go"].find((candidate) => spawnSync(candidate, ["version"], { encoding: "utf8" }).status === 0);
  const missing = GO_LIBRARIES.filter((lib) => !existsSync(join(GOPATH, "src", lib)));
  if (go && missing.length === 0) return { ok: true, go };
  const what = [go ? undefined : "the go command", ...missing.map((m) => `${GOPATH}/src/${m}`)].filter(Boolean).join(", ");
  return { ok: false, reason: `missing ${what}; install with: apt-get install -y --no-install-recommends ${DEBIAN_PACKAGES.join(" ")}` };
}

/** Builds the renderer once per source version into node_modules/.cache and returns its path. */
export function buildRenderer(go: string): string {
  const source = readFileSync(join(SOURCE_DIR, "main.go"));
  const binary = join(CACHE_DIR, `helm-render-${createHash("sha256").update(source).digest("hex").slice(0, 16)}`);
  if (existsSync(binary)) return binary;
  mkdirSync(CACHE_DIR, { recursive: true });
  const partial = `${binary}.${process.pid}.tmp`;
  const result = spawnSync(go, ["build", "-o", partial, "."], {
    cwd: SOURCE_DIR,
    encoding: "utf8",
    env: { ...process.env, GO111MODULE: "off", GOPATH, GOCACHE: join(CACHE_DIR, "go-build"), GOFLAGS: "" },
  });
  if (result.status !== 0) throw new Error(`building the chart renderer failed:\n${result.stderr}`);
  renameSync(partial, binary);
  return binary;
}

/** What `helm template` would print: the documents, or the error. */
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
  notes?: boolean;
}

/** Renders the chart with the renderer binary. */
export function renderChart(binary: string, options: RenderOptions = {}): RenderResult {
  const dir = tempDir("shiplog-chart-");
  try {
    const files = [...(options.valueFiles ?? [])];
    (options.values ?? []).forEach((values, i) => {
      const file = join(dir, `values-${i}.yaml`);
      writeFileSync(file, stringify(values));
      files.push(file);
    });
    const args = ["--chart", CHART_DIR, "--name", options.releaseName ?? "shiplog", "--namespace", options.namespace ?? "shiplog"];
    for (const file of files) args.push("-f", file);
    for (const version of options.apiVersions ?? []) args.push("--api-versions", version);
    if (options.notes) args.push("--notes");
    const result = spawnSync(binary, args, { encoding: "utf8" });
    const ok = result.status === 0;
    const manifests: Manifest[] = [];
    if (ok && !options.notes) {
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
export function renderDefaultPrometheusRule(binary: string): Manifest & { spec: { groups: unknown[] } } {
  const result = renderChart(binary, {
    values: [{ config: { org: "o", cluster: "c", logicalEnvironment: "l" }, token: { value: "t" }, prometheusRule: { enabled: true } }],
    apiVersions: ["monitoring.coreos.com/v1"],
  });
  if (!result.ok) throw new Error(result.stderr);
  const rule = result.manifests.find((m) => m.kind === "PrometheusRule");
  if (!rule) throw new Error("the chart rendered no PrometheusRule with prometheusRule.enabled");
  return rule as Manifest & { spec: { groups: unknown[] } };
}
