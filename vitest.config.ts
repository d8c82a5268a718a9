import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** One of Vite's resolve aliases: a specifier pattern and what it resolves to. */
interface Alias {
  find: RegExp;
  replacement: string;
}

// Three projects, split by what a test needs:
// - unit: pure logic and in-process servers, run on the packages' sources (src/), so an edit is seen with no build.
// - integration: what needs the build: processes spawned from dist/ (CLIs, the controller's entry), the action's and
//   the controller's bundles, the packed client, the chart rendered by Helm, the dist files themselves.
// - real-cluster: a real Kubernetes control plane and Helm, from the toolset `pnpm cluster:tools` builds.
// The unit project resolves every `@shiplog/<package>[/subpath]` to src/ through aliases derived from each package's
// `exports`, not through a "source" export condition: the condition would ship in the published client's
// package.json, pointing at files its tarball leaves out, while aliases stay a test-only concern in this one file.

const root = dirname(fileURLToPath(import.meta.url));

/**
 * Tests that need the build (dist/, lib/ or a bundle), run programs as processes (the CLIs, the controller's entry,
 * the action's bundle, Prometheus, Helm) or wait in real time on servers talking to each other: by name,
 * `*.integration.test.ts`. Every other test is a unit test: pure logic, or in-process servers driven by a virtual clock.
 */
const INTEGRATION_SUFFIX = ".integration.test.ts";
const INTEGRATION = `**/*${INTEGRATION_SUFFIX}`;

/**
 * Tests on the real control plane and real Helm (test/kit/control-plane.ts), built by `pnpm cluster:tools`: by name,
 * `*.real.test.ts`.
 */
const REAL_CLUSTER_SUFFIX = ".real.test.ts";
const REAL_CLUSTER = `**/*${REAL_CLUSTER_SUFFIX}`;

/** Where unit tests are looked for, and what below there is none. */
const UNIT_INCLUDE = ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"];
const UNIT_EXCLUDE = ["**/node_modules/**", "test/bench/**", REAL_CLUSTER, INTEGRATION];

/** The project a test file (its path from the repository's root) runs in, by the rules above; tests check their own layer with it. */
export function projectOf(file: string): "unit" | "integration" | "real-cluster" | undefined {
  if (!file.endsWith(".test.ts") || file.includes("node_modules/")) return undefined;
  if (file.endsWith(REAL_CLUSTER_SUFFIX)) return "real-cluster";
  if (file.endsWith(INTEGRATION_SUFFIX)) return "integration";
  const included = /^packages\/[^/]+\/test\//.test(file) || file.startsWith("test/");
  return included && !file.startsWith("test/bench/") ? "unit" : undefined;
}

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
          include: UNIT_INCLUDE,
          exclude: UNIT_EXCLUDE,
        },
      },
      {
        extends: true,
        test: { name: "integration", include: [INTEGRATION] },
      },
      {
        extends: true,
        test: { name: "real-cluster", include: [REAL_CLUSTER] },
      },
    ],
  },
});
