// `shiplog import` as a user runs it: a subprocess against the emulator, the retired API's status and follow, with
// its warning.
import { describe, expect, it } from "vitest";
import { ShiplogClient } from "@shiplog/client";
import { emulator, shiplog, useCliEmulator } from "./cli-commands-setup.js";

useCliEmulator();

describe("import status|follow (the retired API, with its warning)", () => {
  it("status as a table and --json; follow prints each change once until complete", async () => {
    emulator.clock.set("2024-03-01T12:00:00Z", { freeze: true });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.classic, retry: false });
    await client.imports.startImport({ owner: "acme", repo: "api", vcs_url: "https://svn.example.com/svn/myproject" });
    const status = await shiplog(["import", "status", "acme/api"], emulator.tokens.classic);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^STATUS\s+PHASE\s+IMPORT\s+PUSH\s+COMMITS\s+FROM\s+NEXT STEP\n/);
    expect(status.stderr).toMatch(/^warning: .*retired/);
    expect(JSON.parse((await shiplog(["import", "status", "acme/api", "--json"], emulator.tokens.classic)).stdout)).toMatchObject({
      phase: "working",
    });

    emulator.imports.startTimer(150);
    try {
      const follow = await shiplog(["import", "follow", "acme/api", "--interval", "1"], emulator.tokens.classic);
      expect(follow.code).toBe(0);
      const lines = follow.stdout.split("\n").filter(Boolean);
      expect(lines.at(-1)).toMatch(/^complete\s+complete/);
      expect(new Set(lines).size).toBe(lines.length);
    } finally {
      emulator.imports.stopTimer();
      emulator.clock.reset();
    }
  });
});
