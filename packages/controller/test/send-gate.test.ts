// The sender's failure decisions and its not-before gate, with plain data and an explicit clock.
import { SendGate, callBudget, classifyFailure } from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";

describe("classifyFailure", () => {
  it("rejects entries a 422 names, bisects entries named by position, and probes a 422 that names nothing", () => {
    const named = classifyFailure({
      status: 422,
      code: "validation_failed",
      errors: [{ field: "deployments[deployment_name=shop-web-app].github_repository", code: "missing_field" }],
    });
    expect(named).toEqual({ kind: "reject-named", names: new Set(["shop-web-app"]) });
    expect(classifyFailure({ status: 422, code: "validation_failed", errors: [{ field: "deployments[3].digest" }] })).toEqual({
      kind: "bisect",
    });
    expect(classifyFailure({ code: "invalid_request" })).toEqual({ kind: "bisect" });
    expect(classifyFailure({ status: 422, code: "validation_failed", message: "Validation Failed", errors: [] })).toEqual({
      kind: "probe",
    });
  });

  it("a 422 saying the endpoint is spammed backs off the sender, whether in the message or a field error", () => {
    expect(classifyFailure({ status: 422, message: "The endpoint has been spammed." })).toEqual({ kind: "spammed" });
    expect(
      classifyFailure({ status: 422, message: "Validation Failed", errors: [{ message: "endpoint spammed", code: "custom" }] }),
    ).toEqual({ kind: "spammed" });
  });

  it("any other refusal is a whole-call failure", () => {
    for (const status of [401, 403, 404, 429, 500, 503]) expect(classifyFailure({ status, code: "x" }).kind).toBe("whole-call");
    expect(classifyFailure({ code: "network_error" }).kind).toBe("whole-call");
  });
});

describe("SendGate", () => {
  it("closes for a growing delay, at least Retry-After; a success resets the growth", () => {
    const gate = new SendGate({ minDelayMs: 100, maxDelayMs: 1000, random: () => 1 });
    expect(gate.isOpen(0)).toBe(true);
    expect(gate.close(0, "spammed")).toBe(100);
    expect(gate.isOpen(99)).toBe(false);
    expect(gate.isOpen(100)).toBe(true);
    expect(gate.close(100, "spammed")).toBe(200);
    expect(gate.close(300, "spammed")).toBe(400);
    expect(gate.close(700, "spammed", 5000)).toBe(5000);
    expect(gate.reason).toBe("spammed");
    expect(gate.notBefore).toBe(5700);
    gate.succeeded();
    expect(gate.close(6000, "refused")).toBe(100);
    gate.reset();
    expect(gate.isOpen(0)).toBe(true);
  });

  it("bounds calls per flush: every batch once plus a bisection allowance", () => {
    expect(callBudget(1, 1000)).toBe(1 + 80);
    expect(callBudget(12, 10)).toBe(12 + 32);
  });
});
