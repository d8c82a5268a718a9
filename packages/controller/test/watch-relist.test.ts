// When a watch must relist: the API server's "Too large resource version" answer, and resourceVersions going back.
import { isTooLargeResourceVersion, resourceVersionWentBack } from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";

describe("watch relist decisions", () => {
  it("recognises the API server's Too large resource version Status, with or without the cause", () => {
    const status = {
      kind: "Status",
      status: "Failure",
      message: "Timeout: Too large resource version: 9000, current: 120",
      reason: "Timeout",
      details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
      code: 504,
    };
    expect(isTooLargeResourceVersion(status)).toBe(true);
    // Servers before 1.18.6 set no cause: the message says it.
    expect(isTooLargeResourceVersion({ ...status, details: {} })).toBe(true);
    expect(isTooLargeResourceVersion({ ...status, message: "Timeout: request did not complete within 60s", details: {} })).toBe(false);
    expect(isTooLargeResourceVersion({ code: 410, reason: "Expired", message: "too old resource version" })).toBe(false);
    expect(isTooLargeResourceVersion(undefined)).toBe(false);
  });

  it("a lower numeric resourceVersion went back; opaque or missing ones are never compared", () => {
    expect(resourceVersionWentBack("1200", "130")).toBe(true);
    expect(resourceVersionWentBack("130", "1200")).toBe(false);
    expect(resourceVersionWentBack("99999999999999999999", "100000000000000000000")).toBe(false);
    expect(resourceVersionWentBack("1200", "1200")).toBe(false);
    expect(resourceVersionWentBack(undefined, "5")).toBe(false);
    expect(resourceVersionWentBack("abc", "5")).toBe(false);
  });
});
