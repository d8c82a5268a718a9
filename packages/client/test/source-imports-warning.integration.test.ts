// The source imports' deprecation warning, as a user's process meets it: the built client in a child process.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { SOURCE_IMPORTS_WARNING_CODE } from "@shiplog/client";

describe("retirement at 2024-04-12 00:00 UTC", () => {
  it("emits one DeprecationWarning per process with a stable code", async () => {
    const entry = import.meta.resolve("@shiplog/client");
    const script = `
      const { ShiplogClient } = await import(${JSON.stringify(entry)});
      const warnings = [];
      process.on("warning", (w) => warnings.push({ name: w.name, code: w.code }));
      const client = new ShiplogClient({ baseUrl: "http://127.0.0.1:9", token: "x", tokenInfo: { type: "fine_grained" } });
      for (const call of [() => client.imports.getImportStatus({ owner: "a", repo: "b" }), () => client.imports.getLargeFiles({ owner: "a", repo: "b" })]) {
        await call().catch(() => {});
      }
      await new Promise((r) => setImmediate(r));
      console.log(JSON.stringify(warnings));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
    expect(JSON.parse(stdout)).toEqual([{ name: "DeprecationWarning", code: SOURCE_IMPORTS_WARNING_CODE }]);
  });
});
