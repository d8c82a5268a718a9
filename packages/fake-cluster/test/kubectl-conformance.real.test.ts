// kubectl's checks (kubectl-checks.ts) against a real API server (test/kit/control-plane.ts: kube-apiserver v1.37 with
// its controllers, the scheduler and KWOK's nodes) and against the fake cluster, with the same kubectl (the toolset's,
// of the server's version). A real control plane decides: every check must hold there (else the check's expectation
// is wrong, not the server). A check agrees when it holds against the fake too. Prints each side's table and
// "n of m agree" with every difference; the differences accepted are those the fake cluster's README lists
// (kubectl-divergences.ts), and the test fails when another differs or a listed one agrees.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startControlPlane, type ControlPlane } from "../../../test/kit/control-plane.js";
import { tempDir } from "../../../test/kit/temp-dir.js";
import { type CheckResult, runKubectlChecks } from "./kubectl-checks.js";
import { KNOWN_KUBECTL_DIVERGENCES } from "./kubectl-divergences.js";

/** The issue's bar: of kubectl's checks, at least this many agree. */
const AT_LEAST = 56;

describe("kubectl's checks against a real API server and the fake cluster", () => {
  let plane: ControlPlane;
  let fake: FakeCluster;
  let dir: string;

  beforeAll(async () => {
    dir = tempDir("kubectl-differential-");
    [plane, fake] = await Promise.all([startControlPlane({ nodes: 2 }), startFakeCluster({ nodes: ["kwok-node-0", "kwok-node-1"] })]);
    writeFileSync(join(dir, "fake.kubeconfig"), fake.kubeconfig);
  }, 300_000);
  afterAll(async () => {
    await fake?.stop();
    await plane?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("agree check by check", { timeout: 600_000 }, async () => {
    const version = await plane.kubectl(["version", "-o", "json"]);
    const versions = JSON.parse(version.stdout) as { clientVersion: { gitVersion: string }; serverVersion?: { gitVersion: string } };
    const kubectl = plane.tools.kubectl;
    const realDir = tempDir("kubectl-real-");
    const fakeDir = tempDir("kubectl-fake-");
    let real: CheckResult[];
    let faked: CheckResult[];
    try {
      // A real cluster gets there in its own time: a state check reads until it holds, for up to a minute.
      real = await runKubectlChecks({ kubectl, kubeconfig: plane.kubeconfig, dir: realDir, settle: async () => {}, eventuallyMs: 60_000 });
      faked = await runKubectlChecks({
        kubectl,
        kubeconfig: join(dir, "fake.kubeconfig"),
        dir: fakeDir,
        settle: () => fake.settle(),
        eventuallyMs: 0,
      });
    } finally {
      rmSync(realDir, { recursive: true, force: true });
      rmSync(fakeDir, { recursive: true, force: true });
    }

    const width = Math.max(...real.map((c) => c.name.length));
    const verdict = (c: CheckResult | undefined) => (c?.passed ? "holds" : "FAILS");
    const rows = real.map((r, i) => {
      const f = faked[i];
      return `${r.name.padEnd(width)}  real ${verdict(r)}  fake ${verdict(f)}${r.passed && f?.passed ? "" : "  <-- differs"}`;
    });
    const agree = real.filter((r, i) => r.passed && faked[i]?.passed && faked[i]?.name === r.name);
    const differing = real.filter((r) => !agree.includes(r));
    const details = differing.map((r) => {
      const f = faked.find((c) => c.name === r.name);
      const why = KNOWN_KUBECTL_DIVERGENCES.get(r.name);
      return `- ${r.name}${why ? ` (accepted: ${why})` : ""}\n    real: ${r.passed ? "holds" : r.detail}\n    fake: ${f?.passed ? "holds" : f?.detail}`;
    });
    console.log(
      `kubectl ${versions.clientVersion.gitVersion}, kube-apiserver ${versions.serverVersion?.gitVersion} and the fake cluster:\n` +
        `${rows.join("\n")}\nkubectl checks: ${agree.length} of ${real.length} agree\n${details.join("\n")}`,
    );

    expect(faked.map((c) => c.name)).toEqual(real.map((c) => c.name));
    expect(
      real.filter((c) => !c.passed).map((c) => `${c.name}: ${c.detail}`),
      "checks that fail on the real server",
    ).toEqual([]);
    expect(differing.map((c) => c.name).sort(), "differences are exactly the accepted ones").toEqual(
      [...KNOWN_KUBECTL_DIVERGENCES.keys()].sort(),
    );
    expect(agree.length).toBeGreaterThanOrEqual(AT_LEAST);
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    for (const name of KNOWN_KUBECTL_DIVERGENCES.keys()) expect(readme, `README names "${name}"`).toContain(`\`${name}\``);
  });
});
