import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmulatorUsageError, defaultFixture, startEmulator, type Emulator, type FaultRule } from "@shiplog/emulator";

// Wrong use of the emulator's steering APIs fails with one error type, a stable code, and the argument and rule named.
let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.stop());

function usageError(run: () => unknown): EmulatorUsageError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(EmulatorUsageError);
  expect(caught).toMatchObject({ code: "emulator_usage" });
  return caught as EmulatorUsageError;
}

describe("EmulatorUsageError", () => {
  it("startEmulator with a bad fixture lists the fixture's field paths, and never a token value", async () => {
    const secret = "ghp_real_looking_secret_0000000000";
    const error = await startEmulator({
      fixture: {
        ...defaultFixture,
        orgs: [{ login: "acme", id: "5001" as never, repositories: [{ name: "web" } as never] }],
        tokens: [{ name: "mine", token: secret, type: "personal" as never }],
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmulatorUsageError);
    const usage = error as EmulatorUsageError;
    expect(usage.code).toBe("emulator_usage");
    expect(usage.operation).toBe("startEmulator");
    expect(usage.issues.map((i) => [i.argument, i.rule])).toEqual([
      ["fixture.orgs[0].id", "type number"],
      ["fixture.orgs[0].repositories[0].id", "required"],
      ["fixture.tokens[0].type", "one of classic, fine_grained, app_user, app_installation"],
    ]);
    expect(usage.message).toContain("fixture.orgs[0].id");
    expect(usage.message).not.toContain(secret);
  });

  it("faults.add names the rule's field, and refuses a route the emulator does not have", () => {
    expect(usageError(() => emu.faults.add({ kind: "drop", rate: 1.5 })).issues).toEqual([
      expect.objectContaining({ argument: "rule.rate", rule: "maximum 1" }),
    ]);
    expect(usageError(() => emu.faults.add({ kind: "explode" } as unknown as FaultRule)).issues).toEqual([
      expect.objectContaining({ argument: "rule.kind" }),
    ]);
    expect(usageError(() => emu.faults.add({ kind: "status", times: 0 })).issues).toEqual([
      expect.objectContaining({ argument: "rule.times", rule: "minimum 1" }),
    ]);
    const route = usageError(() => emu.faults.add({ kind: "drop", route: "/repos/{owner}/{repo}/git/tags" }));
    expect(route.issues).toEqual([expect.objectContaining({ argument: "rule.route", rule: "a route template of the emulator" })]);
    expect(() => emu.faults.add({ kind: "drop", route: "/repos/:owner/:repo/git/tags", times: 1 })).not.toThrow();
    emu.faults.clear();
  });

  it("imports.step and runToCompletion name the repository without an import and the step budget", async () => {
    expect(usageError(() => emu.imports.step("acme", "web")).issues).toEqual([
      expect.objectContaining({ argument: "repo", rule: "has an import" }),
    ]);
    emu.clock.set("2024-04-01T00:00:00Z");
    const started = await fetch(`${emu.url}/repos/acme/api/import`, {
      method: "PUT",
      headers: { authorization: `Bearer ${emu.tokens.classic}`, "content-type": "application/json" },
      body: JSON.stringify({ vcs_url: "https://svn.example.com/api", vcs: "subversion" }),
    });
    expect(started.status).toBe(201);
    const budget = usageError(() => emu.imports.runToCompletion("acme", "api", { maxSteps: 1 }));
    expect(budget.issues).toEqual([expect.objectContaining({ argument: "options.maxSteps", rule: "the import finishes within maxSteps" })]);
  });

  it("activity names the unknown repository, user or issue", () => {
    expect(usageError(() => emu.activity.openIssue({ actor: "octo", repo: "acme/nope", title: "x" })).issues).toEqual([
      expect.objectContaining({ argument: "repo", rule: "a repository of the fixture, as owner/name" }),
    ]);
    expect(usageError(() => emu.activity.openIssue({ actor: "nobody", repo: "acme/web", title: "x" })).issues).toEqual([
      expect.objectContaining({ argument: "actor", rule: "a user of the fixture" }),
    ]);
    expect(usageError(() => emu.activity.closeIssue({ actor: "octo", repo: "acme/web", issue: 9999 })).issues).toEqual([
      expect.objectContaining({ argument: "issue", rule: "an issue of the repository" }),
    ]);
  });

  it("poll intervals and simulated load name the argument", () => {
    expect(usageError(() => emu.state.events.setPollInterval(-1)).issues).toEqual([
      expect.objectContaining({ argument: "seconds", rule: "minimum 0" }),
    ]);
    expect(usageError(() => emu.state.events.simulateLoad(0.5)).issues).toEqual([
      expect.objectContaining({ argument: "factor", rule: "minimum 1" }),
    ]);
    expect(usageError(() => emu.state.notifications.setPollInterval(Number.NaN)).issues).toEqual([
      expect.objectContaining({ argument: "seconds" }),
    ]);
  });
});
