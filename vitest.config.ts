import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Alias } from "vitest/config";

// Three projects, split by what a test needs:
// - unit: pure logic and in-process servers, run on the packages' sources (src/), so an edit is seen with no build.
// - integration: what needs the build: processes spawned from dist/ (CLIs, the controller's entry), the action's and
//   the controller's bundles, the packed client, the chart rendered by Helm, the dist files themselves.
// - real-cluster: a real Kubernetes control plane and Helm, from the toolset `pnpm cluster:tools` builds.
// The unit project resolves every `@shiplog/<package>[/subpath]` to src/ through aliases derived from each package's
// `exports`, not through a "source" export condition: the condition would ship in the published client's
// package.json, pointing at files its tarball leaves out, while aliases stay a test-only concern in this one file.

const root = dirname(fileURLToPath(import.meta.url));

/** Tests that need the build (dist/, lib/ or a bundle); every other test is a unit test. */
const INTEGRATION = [
  // The action: its committed bundle, run by @github/local-action or as the runner runs it.
  "packages/action/test/action-bounds.test.ts",
  "packages/action/test/action-bundle.test.ts",
  "packages/action/test/action-files-and-outputs.test.ts",
  "packages/action/test/dist-bundle.test.ts",
  "packages/action/test/local-action.test.ts",
  "packages/action/test/release-flow.test.ts",
  // The CLI run as `node dist/cli.js`.
  "packages/cli/test/app-credentials.test.ts",
  "packages/cli/test/cli-import.test.ts",
  "packages/cli/test/cli-parity.test.ts",
  "packages/cli/test/cli-records.test.ts",
  "packages/cli/test/cli-tag.test.ts",
  "packages/cli/test/cli-tails.test.ts",
  "packages/cli/test/cli-usage.test.ts",
  "packages/cli/test/completion.test.ts",
  "packages/cli/test/permissions-command.test.ts",
  // The CLI README run as written (its blocks, and every command of "Each command, as run" compared with a new run).
  "packages/cli/test/readme.test.ts",
  // The client: packed and installed, or loaded from dist in child processes.
  "packages/client/test/checkpoint-file.test.ts",
  "packages/client/test/http-engines.test.ts",
  "packages/client/test/package-install.test.ts",
  "packages/client/test/readme-blocks.test.ts",
  "packages/client/test/source-imports-warning.test.ts",
  // The controller's entry (dist/main.js) as its own process.
  "packages/controller/test/auth-process.test.ts",
  "packages/controller/test/conflicting-writers.test.ts",
  "packages/controller/test/crash-matrix.test.ts",
  "packages/controller/test/damage-matrix.test.ts",
  "packages/controller/test/deployment-tracker-takeover.test.ts",
  "packages/controller/test/main-process.test.ts",
  "packages/controller/test/proxy-process.test.ts",
  "packages/controller/test/restart-and-failover.test.ts",
  "packages/controller/test/startup-errors.test.ts",
  // The emulator's and the fake cluster's CLIs; the emulator's dist free of the OpenAPI description.
  "packages/emulator/test/admin-api.test.ts",
  "packages/emulator/test/cli.test.ts",
  "packages/emulator/test/emulator-bin.test.ts",
  "packages/emulator/test/request-schemas.test.ts",
  "packages/fake-cluster/test/cli.test.ts",
  // The chart rendered and its controller run from dist or the image's bundle; Prometheus against the process.
  "test/chart-auth.test.ts",
  "test/chart-controller-run.test.ts",
  "test/chart-heap.test.ts",
  "test/chart-monitoring.test.ts",
  "test/chart-rbac.test.ts",
  "test/chart-rendering.test.ts",
  "test/chart-schema.test.ts",
  "test/chart-settings.test.ts",
  "test/chart-validation.test.ts",
  "test/controller-image.test.ts",
  "test/prometheus.e2e.test.ts",
  // The README's example run by tsx, importing the built client as a user's script does.
  "test/readme-tailing.test.ts",
  // The secret sweep and the hostile-file table: the controller, the CLI and the action as real processes.
  "test/hostile-files.test.ts",
  "test/secret-sweep.test.ts",
  // The root README's library and command-line quick start, run as written (tsx, and `shiplog` from node_modules/.bin).
  "test/readme-quick-start.test.ts",
];

/**
 * Tests on the real control plane and real Helm (test/kit/control-plane.ts), built by `pnpm cluster:tools`: by name,
 * `*.real.test.ts`.
 */
const REAL_CLUSTER = "**/*.real.test.ts";

interface PackageJson {
  name: string;
  exports?: Record<string, string | Record<string, string>>;
}

/** The source file a built export target comes from: ./dist/x.js or ./lib/x.js -> src/x.ts. */
function sourceOf(target: string): string | undefined {
  const match = /^\.\/(?:dist|lib)\/(.+)\.js$/.exec(target);
  return match ? `src/${match[1]}.ts` : undefined;
}

/** `@shiplog/<package>[/subpath]` -> packages/<package>/src/..., from each package's `exports`. */
function sourceAliases(): Alias[] {
  const aliases: Alias[] = [];
  for (const dir of readdirSync(join(root, "packages"))) {
    const pkg = JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as PackageJson;
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const source = sourceOf(typeof target === "string" ? target : (target.import ?? target.default ?? ""));
      if (!source) continue;
      const specifier = `${pkg.name}${subpath.slice(1)}`.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      const find = new RegExp(`^${specifier.replace("\\*", "(.+)")}$`);
      aliases.push({ find, replacement: join(root, "packages", dir, source.replace("*", "$1")) });
    }
  }
  return aliases;
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default is one worker less than the cores: one at a time on our 2-core machines. Most files wait on
    // child processes and sockets rather than compute, so two at a time there (the whole suite: 373 s -> 233 s on one
    // machine, Node 20), and the default on larger machines.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        resolve: { alias: sourceAliases() },
        test: {
          name: "unit",
          include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["**/node_modules/**", "test/bench/**", REAL_CLUSTER, ...INTEGRATION],
        },
      },
      {
        extends: true,
        test: { name: "integration", include: INTEGRATION },
      },
      {
        extends: true,
        test: { name: "real-cluster", include: [REAL_CLUSTER] },
      },
    ],
  },
});
