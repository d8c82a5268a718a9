// The machine's real kubectl against the fake cluster: every check compares what kubectl prints with what it prints
// against a real API server (the server's own wording; kubectl-conformance.real.test.ts runs the same checks against
// kube-apiserver v1.37 and the fake side by side). Prints a FAITHFUL/DIVERGES table; a divergence that is not named in
// the fake cluster's README fails the test.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/kit/temp-dir.js";
import { KNOWN_KUBECTL_DIVERGENCES } from "./kubectl-divergences.js";
import { runKubectlChecks } from "./kubectl-checks.js";

const KUBECTL = process.env.KUBECTL ?? "kubectl";
const hasKubectl = spawnSync(KUBECTL, ["version", "--client"], { encoding: "utf8" }).status === 0;
// CI installs kubectl (Debian's kubernetes-client) when missing, so there its absence is a failure, not a skip.
const runIt = hasKubectl || process.env.CI === "true";

describe.runIf(runIt)("kubectl against the fake cluster", () => {
  let cluster: FakeCluster;
  let dir: string;

  beforeAll(async () => {
    expect(hasKubectl, `no ${KUBECTL} on PATH (CI installs Debian's kubernetes-client)`).toBe(true);
    dir = tempDir("kubectl-conformance-");
    cluster = await startFakeCluster({ nodes: ["node-1", "node-2"] });
    writeFileSync(join(dir, "kubeconfig"), cluster.kubeconfig);
  });
  afterAll(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("behaves as against a real API server", { timeout: 120_000 }, async () => {
    const version = spawnSync(KUBECTL, ["version", "--client", "-o", "json"], { encoding: "utf8" });
    const kubectlVersion = (JSON.parse(version.stdout) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion;
    // The fake settles synchronously with the writes it was sent: a state check reads once.
    const checks = await runKubectlChecks({
      kubectl: KUBECTL,
      kubeconfig: join(dir, "kubeconfig"),
      dir,
      settle: () => cluster.settle(),
      eventuallyMs: 0,
    });

    const width = Math.max(...checks.map((c) => c.name.length));
    const table = checks.map((c) => `${c.name.padEnd(width)}  ${c.passed ? "FAITHFUL" : "DIVERGES"}${c.passed ? "" : `  ${c.detail}`}`);
    console.log(
      `kubectl ${kubectlVersion} against the fake cluster (${checks.filter((c) => c.passed).length} of ${checks.length} faithful):\n${table.join("\n")}`,
    );
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const unexpected = checks.filter((c) => !c.passed && !KNOWN_KUBECTL_DIVERGENCES.has(c.name));
    expect(unexpected, "divergences not named in README").toEqual([]);
    for (const name of KNOWN_KUBECTL_DIVERGENCES.keys()) {
      expect(checks.find((c) => c.name === name)?.passed, `${name} is listed as a divergence`).toBe(false);
      expect(readme, `README names the divergence "${name}"`).toContain(`\`${name}\``);
    }
  });
});
