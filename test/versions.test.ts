// The version is written once per package, in its package.json, and shiplog releases every package under one
// version: the packages agree, and every derived copy (src/version.ts modules, the chart's version and appVersion,
// written by scripts/write-versions.mjs) follows them.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CONTROLLER_VERSION } from "@shiplog/controller";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const readJson = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8")) as { version: string };
const packages = readdirSync(join(root, "packages"));
const versions = Object.fromEntries(packages.map((pkg) => [pkg, readJson(`packages/${pkg}/package.json`).version]));
const chart = parse(readFileSync(join(root, "charts", "shiplog-controller", "Chart.yaml"), "utf8")) as {
  version: string;
  appVersion: string;
};

describe("the version", () => {
  it("is the same in every package's package.json", () => {
    expect(packages.length).toBeGreaterThanOrEqual(6);
    expect(new Set(Object.values(versions)), JSON.stringify(versions)).toHaveProperty("size", 1);
  });

  it("is the chart's version and appVersion (the image tag it defaults to)", () => {
    expect(chart).toMatchObject({ version: versions.controller, appVersion: versions.controller });
  });

  it("reaches the code through the generated modules, which are current", () => {
    execFileSync(process.execPath, [join(root, "scripts", "write-versions.mjs"), "--check"], { stdio: "pipe" });
    expect(CONTROLLER_VERSION).toBe(versions.controller);
  });
});
