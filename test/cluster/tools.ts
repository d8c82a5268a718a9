// The real-cluster toolset: kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd, KWOK and Helm,
// built from the Go modules pinned in test/cluster/tools/go.mod into a cache keyed by those pins, so that a warm
// machine builds nothing. `pnpm cluster:tools` prints the folder; tests find it through `clusterTools()`.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const MODULE_DIR = join(dirname(fileURLToPath(import.meta.url)), "tools");
/** The oldest Go that builds the pinned modules (their go.mod files say 1.26). */
const MIN_GO = [1, 26] as const;
/** Binaries whose package path does not end in the program's name. */
const RENAMED: Record<string, string> = { "go.etcd.io/etcd/server/v3": "etcd" };
/** KWOK's own stages (in its module) for fast nodes with lease heartbeats and the pod lifecycle, as kwokctl uses them. */
const KWOK_STAGES = [
  "kustomize/stage/node/fast/node-initialize.yaml",
  "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
  "kustomize/stage/pod/fast/pod-ready.yaml",
  "kustomize/stage/pod/fast/pod-complete.yaml",
  "kustomize/stage/pod/fast/pod-delete.yaml",
];
const KWOK_STAGES_FILE = "kwok-stages.yaml";

/** The toolset's binaries, by name. */
export interface ClusterTools {
  dir: string;
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubeScheduler: string;
  kubectl: string;
  kwok: string;
  helm: string;
  /** KWOK's stages, for `kwok --config`. */
  kwokStages: string;
}

/** Why the toolset cannot be had, in one line (no Go, an old Go, a failed build). */
export class ClusterToolsError extends Error {
  readonly code = "CLUSTER_TOOLS_UNAVAILABLE";
}

/** The `tool` lines of go.mod: the packages to build. */
function toolPackages(goMod: string): string[] {
  const block = /^tool \(\n([^)]*)\)/m.exec(goMod)?.[1] ?? "";
  return block
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("//"));
}

/** The program's name in the toolset: `go build`'s name for the package, or our rename of it. */
function binaryName(pkg: string): string {
  return RENAMED[pkg] ?? goBuildName(pkg);
}

/** The name `go build -o DIR/` gives a package's binary (a trailing /vN is skipped). */
function goBuildName(pkg: string): string {
  const parts = pkg.split("/");
  return /^v\d+$/.test(parts.at(-1)!) ? parts.at(-2)! : parts.at(-1)!;
}

/** The `go` command's version, or a one-line reason it cannot build the toolset. */
function goVersion(): string {
  const run = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8" });
  if (run.error || run.status !== 0) {
    throw new ClusterToolsError(
      `the real-cluster toolset needs Go ${MIN_GO.join(".")} or later on PATH (not found): install it from your distribution or the Go project, then run pnpm cluster:tools`,
    );
  }
  const version = run.stdout.trim();
  const [major = 0, minor = 0] = (/^go(\d+)\.(\d+)/.exec(version) ?? []).slice(1).map(Number);
  if (major < MIN_GO[0] || (major === MIN_GO[0] && minor < MIN_GO[1])) {
    throw new ClusterToolsError(`the real-cluster toolset needs Go ${MIN_GO.join(".")} or later; PATH has ${version}`);
  }
  return version;
}

/**
 * Link flags that stamp Kubernetes' version into its programs, as its own build does (hack/lib/version.sh): without
 * them the API server reports v0.0.0, which Helm's kubeVersion checks and kubectl's version skew rules read.
 */
function versionFlags(goMod: string): string {
  const version = /^\s*k8s\.io\/kubernetes (v(\d+)\.(\d+)\.\d+)\b/m.exec(goMod);
  if (!version) throw new ClusterToolsError("test/cluster/tools/go.mod: no `k8s.io/kubernetes v1.x.y` requirement");
  const [, gitVersion, major, minor] = version;
  const stamp = { gitVersion, gitMajor: major, gitMinor: minor, gitTreeState: "clean", buildDate: "1970-01-01T00:00:00Z" };
  return ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"]
    .flatMap((pkg) => Object.entries(stamp).map(([name, value]) => `-X ${pkg}.${name}=${value}`))
    .join(" ");
}

/** The cache folder: one per set of pins, build flags and Go version. */
function cacheDir(goMod: string, goSum: string, version: string): string {
  const root =
    process.env.SHIPLOG_CLUSTER_TOOLS_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "shiplog", "cluster-tools");
  const key = createHash("sha256")
    .update([goMod, goSum, versionFlags(goMod), KWOK_STAGES.join(" "), version, process.arch].join("\0"))
    .digest("hex");
  return join(resolve(root), key.slice(0, 16));
}

function toolsIn(dir: string): ClusterTools {
  const bin = (name: string) => join(dir, name);
  return {
    dir,
    etcd: bin("etcd"),
    kubeApiserver: bin("kube-apiserver"),
    kubeControllerManager: bin("kube-controller-manager"),
    kubeScheduler: bin("kube-scheduler"),
    kubectl: bin("kubectl"),
    kwok: bin("kwok"),
    helm: bin("helm"),
    kwokStages: bin(KWOK_STAGES_FILE),
  };
}

/**
 * The toolset's folder: found in the cache, or built there first (many minutes on a cold machine).
 * `onBuild` hears when a build starts and how long it took.
 */
export function clusterTools(options: { build?: boolean; onBuild?: (event: string) => void } = {}): ClusterTools {
  const goMod = readFileSync(join(MODULE_DIR, "go.mod"), "utf8");
  const goSum = readFileSync(join(MODULE_DIR, "go.sum"), "utf8");
  const version = goVersion();
  const dir = cacheDir(goMod, goSum, version);
  const packages = toolPackages(goMod);
  const files = [...packages.map(binaryName), KWOK_STAGES_FILE];
  if (files.every((file) => existsSync(join(dir, file)))) return toolsIn(dir);
  if (options.build === false) throw new ClusterToolsError(`the real-cluster toolset is not built (${dir}): run pnpm cluster:tools`);

  options.onBuild?.(`building ${packages.length} programs with ${version} into ${dir} (a cold build takes many minutes)`);
  const started = Date.now();
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  // -mod=readonly: go.mod and go.sum are committed and exact; GOTOOLCHAIN=local: the Go on PATH, never a download.
  const run = spawnSync("go", ["build", "-ldflags", versionFlags(goMod), "-o", `${partial}/`, ...packages], {
    cwd: MODULE_DIR,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local" },
  });
  if (run.status !== 0) {
    rmSync(partial, { recursive: true, force: true });
    throw new ClusterToolsError(`go build of the real-cluster toolset failed (exit ${run.status}); its errors are above`);
  }
  for (const pkg of packages) {
    if (goBuildName(pkg) !== binaryName(pkg)) renameSync(join(partial, goBuildName(pkg)), join(partial, binaryName(pkg)));
  }
  writeFileSync(join(partial, KWOK_STAGES_FILE), kwokStages());
  mkdirSync(dirname(dir), { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
  options.onBuild?.(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return toolsIn(dir);
}

/**
 * KWOK's stage files from its module, as one YAML stream. One addition: a container's status gets the `imageID` a
 * kubelet reports (the image's digest); KWOK's stages leave it out. For an image pinned by digest that is the image
 * itself, which is how the tests' and benchmarks' workloads name their images.
 */
function kwokStages(): string {
  const run = spawnSync("go", ["list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok"], { cwd: MODULE_DIR, encoding: "utf8" });
  if (run.status !== 0) throw new ClusterToolsError(`go list -m sigs.k8s.io/kwok failed: ${run.stderr.trim()}`);
  const statusImage = /^(\s*)- image: \{\{ \.image \| Quote \}\}$/gm;
  return KWOK_STAGES.map((file) =>
    readFileSync(join(run.stdout.trim(), file), "utf8")
      .trim()
      .replace(statusImage, (line, indent: string) => `${line}\n${indent}  imageID: {{ .image | Quote }}`),
  ).join("\n---\n");
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const tools = clusterTools({ onBuild: (event) => console.error(`cluster:tools: ${event}`) });
    console.log(tools.dir);
  } catch (error) {
    if (!(error instanceof ClusterToolsError)) throw error;
    console.error(`cluster:tools: ${error.message}`);
    process.exit(1);
  }
}
