// The client's version is written once, in package.json (test/versions.test.ts checks the generated module follows
// it): requests carry it.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ShiplogClient } from "@shiplog/client";
import { closeLoopbackServers, serve } from "../../../test/kit/loopback.js";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const { version } = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string };

describe("the client's version", () => {
  it("is what the User-Agent of a request names", async () => {
    const agents: (string | undefined)[] = [];
    const url = await serve((req, res) => {
      agents.push(req.headers["user-agent"]);
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ total_count: 0, storage_records: [] }));
    });
    try {
      await new ShiplogClient({ baseUrl: url, token: "t" }).artifacts.listStorageRecords({
        org: "acme",
        subject_digest: `sha256:${"a".repeat(64)}`,
      });
    } finally {
      await closeLoopbackServers();
    }
    expect(agents).toEqual([`shiplog-client/${version}`]);
  });
});
