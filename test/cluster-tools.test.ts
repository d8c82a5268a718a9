// `pnpm cluster:tools` on a machine that cannot build the real-cluster toolset says why in one line: no Go, or a Go
// older than the pinned modules need. (The build itself runs before the suite: `pnpm test` calls it.)
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "./chart/helm.js";
import { runProcess } from "./kit/process.js";
import { tempDir } from "./kit/temp-dir.js";

const run = (path: string) =>
  runProcess(process.execPath, ["--import", "tsx", join(REPO_ROOT, "test/cluster/tools.ts")], {
    cwd: REPO_ROOT,
    env: { PATH: path, HOME: tempDir("shiplog-home-") },
  });

describe("pnpm cluster:tools without a usable Go", () => {
  it("no go on PATH: one line naming what to install", async () => {
    const result = await run(tempDir("shiplog-empty-path-"));
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      "cluster:tools: the real-cluster toolset needs Go 1.26 or later on PATH (not found): install it from your distribution or the Go project, then run pnpm cluster:tools",
    ]);
  });

  it("an older go on PATH: one line naming the version found", async () => {
    const dir = tempDir("shiplog-old-go-");
    writeFileSync(join(dir, "go"), '#!/bin/sh\n[ "$1 $2" = "env GOVERSION" ] && echo go1.19.8\n');
    chmodSync(join(dir, "go"), 0o755);
    const result = await run(`${dir}:/usr/bin:/bin`);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual(["cluster:tools: the real-cluster toolset needs Go 1.26 or later; PATH has go1.19.8"]);
  });
});
