import { describe, expect, it } from "vitest";
import { RequestLog } from "@shiplog/emulator/internal";

const entry = (n: number) => ({
  method: n % 2 ? "GET" : "POST",
  url: `/r/${n}`,
  route: "/r/:n",
  status: 200,
  tokenName: undefined,
  apiVersion: undefined,
  userAgent: undefined,
  accept: undefined,
  time: "",
});

describe("RequestLog (a ring buffer)", () => {
  it("keeps the newest entries, oldest first, filters, counts and clears", () => {
    const log = new RequestLog(3);
    for (let n = 1; n <= 5; n++) log.record(entry(n));
    expect(log.list().map((e) => e.url)).toEqual(["/r/3", "/r/4", "/r/5"]);
    expect(log.list({ method: "get" }).map((e) => e.url)).toEqual(["/r/3", "/r/5"]);
    expect(log.count()).toBe(3);
    log.clear();
    expect(log.list()).toEqual([]);
    log.record(entry(6));
    expect(log.list().map((e) => e.url)).toEqual(["/r/6"]);
  });

  it("refuses a limit that is not a positive integer", () => {
    expect(() => new RequestLog(0)).toThrow(/positive integer/);
  });
});
