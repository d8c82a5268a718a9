import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = resolve(packageDir, "../..");
const work = mkdtempSync(join(tmpdir(), "shiplog-client-pack-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the packed client installs into an empty project and imports from plain Node", () => {
  it("packs, installs, imports and type-checks", () => {
    execFileSync("npm", ["pack", "--pack-destination", work, "--loglevel=error"], { cwd: packageDir, stdio: "pipe" });
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBeDefined();

    const listing = execFileSync("tar", ["-tzf", join(work, tarball!)], { encoding: "utf8" }).split("\n");
    expect(listing).toContain("package/dist/index.js");
    expect(listing).toContain("package/dist/index.d.ts");
    expect(listing).toContain("package/README.md");
    expect(listing.some((f) => f.startsWith("package/src/") || f.startsWith("package/test/"))).toBe(false);

    const project = join(work, "consumer");
    execFileSync("mkdir", ["-p", project]);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", join(work, tarball!)], { cwd: project, stdio: "pipe" });

    const script = `
      import { ShiplogClient, RequestValidationError, RUNTIME_RISKS } from "@shiplog/client";
      const client = new ShiplogClient({ baseUrl: "http://127.0.0.1:9", token: "t" });
      try {
        await client.artifacts.createStorageRecord({ org: "acme", name: "x", digest: "nope", registry_url: "https://r/" });
      } catch (e) {
        console.log(JSON.stringify({ ok: e instanceof RequestValidationError, code: e.code, risks: RUNTIME_RISKS.length }));
      }`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" });
    expect(JSON.parse(out.trim())).toEqual({ ok: true, code: "invalid_request", risks: 4 });

    // The declarations resolve through the exports map for a TypeScript consumer.
    writeFileSync(
      join(project, "use.ts"),
      `import { ShiplogClient, type DeploymentRecord } from "@shiplog/client";
       const client = new ShiplogClient({ baseUrl: "http://127.0.0.1:9" });
       export async function names(): Promise<string[]> {
         const list = await client.artifacts.listDeploymentRecords({ org: "acme", subject_digest: "sha256:0" });
         return list.deployment_records.map((r: DeploymentRecord) => r.deployment_name);
       }`,
    );
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", noEmit: true, skipLibCheck: false, types: [] }, files: ["use.ts"] }),
    );
    execFileSync(process.execPath, [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", project], { cwd: project, stdio: "pipe" });

    // CommonJS: require() of the package (Node >= 20.19 loads its ESM through require), run and type-checked.
    const cjs = `
      const { ShiplogClient, RequestValidationError, tokenProvider } = require("@shiplog/client");
      const client = new ShiplogClient({ baseUrl: "http://127.0.0.1:9", auth: tokenProvider(async () => "t") });
      client.artifacts.createStorageRecord({ org: "acme", name: "x", digest: "nope", registry_url: "https://r/" }).catch((e) => {
        console.log(JSON.stringify({ ok: e instanceof RequestValidationError, code: e.code }));
      });`;
    const cjsOut = execFileSync(process.execPath, ["--input-type=commonjs", "-e", cjs], { cwd: project, encoding: "utf8" });
    expect(JSON.parse(cjsOut.trim())).toEqual({ ok: true, code: "invalid_request" });
    writeFileSync(
      join(project, "use-cjs.cts"),
      `import shiplog = require("@shiplog/client");
       const client = new shiplog.ShiplogClient({ baseUrl: "http://127.0.0.1:9" });
       export async function names(): Promise<string[]> {
         const list = await client.artifacts.listDeploymentRecords({ org: "acme", subject_digest: "sha256:0" });
         return list.deployment_records.map((r: shiplog.DeploymentRecord) => r.deployment_name);
       }
       export const strategy: shiplog.AuthStrategy = shiplog.staticToken("t");`,
    );
    writeFileSync(
      join(project, "tsconfig.cjs.json"),
      JSON.stringify({ compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", noEmit: true, skipLibCheck: false, types: [] }, files: ["use-cjs.cts"] }),
    );
    execFileSync(process.execPath, [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.cjs.json"], { cwd: project, stdio: "pipe" });
    // npm pack and install, and two type-checks: about 20 s alone, several times that on a loaded machine.
  }, 240_000);
});
