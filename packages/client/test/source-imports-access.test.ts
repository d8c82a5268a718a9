// Source imports (retired) through the client against the emulator: the retirement switch on both sides of
// 2024-04-12, and the token rules (a personal access token (classic) only).
import { describe, expect, it } from "vitest";
import { ForbiddenError, NotFoundError, RetiredEndpointError, ShiplogClient, TokenTypeRefusedError } from "@shiplog/client";
import { SVN_URL, client, emulator, target, useImportEmulator } from "./source-imports-setup.js";
import { AT_CUTOFF, BEFORE_CUTOFF, reach } from "./source-imports-reach.js";

// The deprecation warning is tested in a child process (source-imports-warning.integration.test.ts); here it would only add noise.
process.noDeprecation = true;

useImportEmulator(BEFORE_CUTOFF);

describe("retirement at 2024-04-12 00:00 UTC", () => {
  it("one second before the cutoff the endpoints work; at the cutoff every one answers as retired", async () => {
    emulator.clock.set(BEFORE_CUTOFF, { freeze: true });
    await reach("complete");
    await expect(client.imports.getImportStatus(target)).resolves.toMatchObject({ status: "complete" });

    emulator.clock.set(AT_CUTOFF, { freeze: true });
    const calls: (() => Promise<unknown>)[] = [
      () => client.imports.getImportStatus(target),
      () => client.imports.startImport({ ...target, vcs_url: SVN_URL }),
      () => client.imports.updateImport(target),
      () => client.imports.cancelImport(target),
      () => client.imports.getCommitAuthors(target),
      () => client.imports.mapCommitAuthor({ ...target, author_id: 1, name: "x" }),
      () => client.imports.getLargeFiles(target),
      () => client.imports.setLfsPreference({ ...target, use_lfs: "opt_in" }),
    ];
    for (const call of calls) {
      const error = await call().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RetiredEndpointError);
      expect(error).toMatchObject({ code: "retired_endpoint", status: 410, retiredAt: AT_CUTOFF });
      expect((error as Error).message).toContain("2024-04-12");
    }
  });

  it("the emulator's default clock is the real time, after the cutoff: retired", async () => {
    emulator.clock.reset();
    await expect(client.imports.getImportStatus(target)).rejects.toMatchObject({ code: "retired_endpoint" });
  });

  it("retirement wins over maintenance and over the token rules", async () => {
    emulator.clock.set(AT_CUTOFF, { freeze: true });
    emulator.imports.setMaintenance(true);
    await expect(client.imports.getImportStatus(target)).rejects.toBeInstanceOf(RetiredEndpointError);
    const fineGrained = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
    await expect(fineGrained.imports.getImportStatus(target)).rejects.toBeInstanceOf(RetiredEndpointError);
  });
});

describe("token rules (spec 5.1: a personal access token (classic) only)", () => {
  it("the emulator refuses fine-grained, app user and installation tokens with 403", async () => {
    for (const name of ["admin", "appUser", "installation"]) {
      const other = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens[name], retry: false });
      await expect(other.imports.getImportStatus(target)).rejects.toBeInstanceOf(ForbiddenError);
    }
  });

  it("a classic token without the repo scope cannot see the private target (404), nor write a public one (403)", async () => {
    const hubot = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.classicHubot, retry: false });
    await expect(hubot.imports.getImportStatus(target)).rejects.toBeInstanceOf(NotFoundError);
    await expect(hubot.imports.getImportStatus({ owner: "acme", repo: "web" })).rejects.toBeInstanceOf(ForbiddenError);
  });

  it("a client told its token type refuses locally, sending nothing", async () => {
    emulator.requests.clear();
    const declared = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, tokenInfo: { type: "fine_grained" } });
    const error = await declared.imports.startImport({ ...target, vcs_url: SVN_URL }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenTypeRefusedError);
    expect(emulator.requests.list()).toHaveLength(0);
  });
});
