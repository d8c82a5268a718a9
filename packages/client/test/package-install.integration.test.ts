import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/kit/temp-dir.js";

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repoRoot = resolve(packageDir, "../..");
const work = tempDir("shiplog-client-pack-");
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the packed client installs into an empty project and imports from plain Node", () => {
  it("packs, installs, imports and type-checks", () => {
    // Packed as the workspace publishes it (pnpm applies publishConfig: the exports without ./internal).
    execFileSync("npx", ["-y", "pnpm@10.34.8", "pack", "--pack-destination", work], { cwd: packageDir, stdio: "pipe" });
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    expect(tarball).toBeDefined();

    const listing = execFileSync("tar", ["-tzf", join(work, tarball!)], { encoding: "utf8" }).split("\n");
    expect(listing).toContain("package/dist/index.js");
    expect(listing).toContain("package/dist/index.d.ts");
    expect(listing).toContain("package/README.md");
    expect(listing.some((f) => f.startsWith("package/src/") || f.startsWith("package/test/"))).toBe(false);
    // shiplog's own packages share some internals through ./internal; the published package neither exports nor holds it.
    expect(listing.filter((f) => f.startsWith("package/dist/internal."))).toEqual([]);
    const packed = JSON.parse(execFileSync("tar", ["-xzOf", join(work, tarball!), "package/package.json"], { encoding: "utf8" })) as {
      exports: Record<string, unknown>;
      publishConfig?: unknown;
    };
    const workspace = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { exports: Record<string, unknown> };
    const { "./internal": internal, ...published } = workspace.exports;
    expect(internal).toBeDefined();
    expect(packed.exports).toEqual(published);

    const project = join(work, "consumer");
    execFileSync("mkdir", ["-p", project]);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", join(work, tarball!)], {
      cwd: project,
      stdio: "pipe",
    });

    const script = `
      import { ShiplogClient, RequestValidationError, RUNTIME_RISKS } from "@shiplog/client";
      import { storageRecord } from "@shiplog/client/schemas";
      import { requiredPermissions } from "@shiplog/client/permissions";
      import { ENDPOINTS } from "@shiplog/client/endpoints";
      const client = new ShiplogClient({ baseUrl: "http://127.0.0.1:9", token: "t" });
      const subpaths = [
        storageRecord.safeParse({}).success,
        requiredPermissions("GET", "/repos/a/b/git/tags/" + "a".repeat(40)).covered,
        ENDPOINTS["git/get-tag"].method,
        await import("@shiplog/client/internal").then(() => "importable", (e) => e.code),
      ];
      try {
        await client.artifacts.createStorageRecord({ org: "acme", name: "x", digest: "nope", registry_url: "https://r/" });
      } catch (e) {
        console.log(JSON.stringify({ ok: e instanceof RequestValidationError, code: e.code, risks: RUNTIME_RISKS.length, subpaths }));
      }`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" });
    expect(JSON.parse(out.trim())).toEqual({
      ok: true,
      code: "invalid_request",
      risks: 4,
      subpaths: [false, true, "GET", "ERR_PACKAGE_PATH_NOT_EXPORTED"],
    });

    // The declarations resolve through the exports map for a TypeScript consumer.
    // Every subpath's types resolve, under Node's resolution and a bundler's.
    writeFileSync(
      join(project, "use.ts"),
      `import { ShiplogClient, isShiplogError, type DeploymentRecord, type ResultOf } from "@shiplog/client";
       import { deploymentRecord } from "@shiplog/client/schemas";
       import { requiredPermissions, type PermissionLookup } from "@shiplog/client/permissions";
       import { ENDPOINTS, type OperationId } from "@shiplog/client/endpoints";
       const client = new ShiplogClient({ baseUrl: "http://127.0.0.1:9" });
       export async function names(): Promise<string[]> {
         const list = await client.artifacts.listDeploymentRecords({ org: "acme", subject_digest: "sha256:0" });
         return list.deployment_records.map((r: DeploymentRecord) => r.deployment_name);
       }
       export const ref: Promise<ResultOf<"git/get-ref">> = client.call("git/get-ref", { owner: "a", repo: "b", ref: "tags/v1" });
       export const lookup: PermissionLookup = requiredPermissions("GET", "/events");
       export const id: OperationId = "git/get-ref";
       export const route: string = ENDPOINTS[id].route;
       export const parsed = deploymentRecord.safeParse({});
       export async function narrowed(): Promise<string[]> {
         const heads: string[] = [];
         for await (const event of client.activity.listPublicEvents()) if (event.type === "PushEvent") heads.push(event.payload.head);
         return heads;
       }
       export function toSendAgain(error: unknown): string[] {
         return isShiplogError(error, "partial_write") ? error.notWritten.map((d) => d.deployment_name) : [];
       }`,
    );
    const compilerOptions = { strict: true, target: "ES2022", noEmit: true, skipLibCheck: false, types: [] };
    for (const [file, resolution] of [
      ["tsconfig.json", { module: "NodeNext", moduleResolution: "NodeNext" }],
      ["tsconfig.bundler.json", { module: "ESNext", moduleResolution: "bundler" }],
    ] as const) {
      writeFileSync(join(project, file), JSON.stringify({ compilerOptions: { ...compilerOptions, ...resolution }, files: ["use.ts"] }));
      const tsc = spawnSync(process.execPath, [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", join(project, file)], {
        cwd: project,
        encoding: "utf8",
      });
      expect(tsc.stdout + tsc.stderr, `tsc -p ${file}`).toBe("");
      expect(tsc.status).toBe(0);
    }

    // CommonJS: require() of the package (Node >= 20.19 loads its ESM through require), run and type-checked.
    const cjs = `
      const { ShiplogClient, RequestValidationError, tokenProvider } = require("@shiplog/client");
      const subpaths = ["schemas", "permissions", "endpoints"].map((name) => Object.keys(require("@shiplog/client/" + name)).length > 0);
      try { require("@shiplog/client/internal"); subpaths.push("importable"); } catch (e) { subpaths.push(e.code); }
      const client = new ShiplogClient({ baseUrl: "http://127.0.0.1:9", auth: tokenProvider(async () => "t") });
      client.artifacts.createStorageRecord({ org: "acme", name: "x", digest: "nope", registry_url: "https://r/" }).catch((e) => {
        console.log(JSON.stringify({ ok: e instanceof RequestValidationError, code: e.code, subpaths }));
      });`;
    const cjsOut = execFileSync(process.execPath, ["--input-type=commonjs", "-e", cjs], { cwd: project, encoding: "utf8" });
    expect(JSON.parse(cjsOut.trim())).toEqual({
      ok: true,
      code: "invalid_request",
      subpaths: [true, true, true, "ERR_PACKAGE_PATH_NOT_EXPORTED"],
    });
    writeFileSync(
      join(project, "use-cjs.cts"),
      `import shiplog = require("@shiplog/client");
       import permissions = require("@shiplog/client/permissions");
       export const covered: boolean = permissions.requiredPermissions("GET", "/events").covered;
       const client = new shiplog.ShiplogClient({ baseUrl: "http://127.0.0.1:9" });
       export async function names(): Promise<string[]> {
         const list = await client.artifacts.listDeploymentRecords({ org: "acme", subject_digest: "sha256:0" });
         return list.deployment_records.map((r: shiplog.DeploymentRecord) => r.deployment_name);
       }
       export const strategy: shiplog.AuthStrategy = shiplog.staticToken("t");`,
    );
    writeFileSync(
      join(project, "tsconfig.cjs.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: "NodeNext",
          moduleResolution: "NodeNext",
          target: "ES2022",
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ["use-cjs.cts"],
      }),
    );
    execFileSync(process.execPath, [join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.cjs.json"], {
      cwd: project,
      stdio: "pipe",
    });
    // pnpm pack, npm install, and the type-checks: about 20 s alone, several times that on a loaded machine.
  }, 240_000);
});
