import { parseLabelSelector } from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";

const parse = (text: string) => {
  const parsed = parseLabelSelector(text);
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
};
const reason = (text: string) => {
  const parsed = parseLabelSelector(text);
  if (parsed.ok) throw new Error(`"${text}" was accepted`);
  return parsed.reason;
};

describe("parseLabelSelector", () => {
  it("parses equality, inequality, set-based, exists and !exists requirements", () => {
    expect(parse("app=web, tier == front,env!=dev").requirements).toEqual([
      { key: "app", operator: "=", value: "web" },
      { key: "tier", operator: "=", value: "front" },
      { key: "env", operator: "!=", value: "dev" },
    ]);
    expect(parse("tier in (a, b),team notin (x),canary,!legacy").requirements).toEqual([
      { key: "tier", operator: "in", values: ["a", "b"] },
      { key: "team", operator: "notin", values: ["x"] },
      { key: "canary", operator: "exists" },
      { key: "legacy", operator: "!exists" },
    ]);
    expect(parse("example.com/tier=a.b_c-d, app.kubernetes.io/name=web, shard>3, rank<10, empty=").requirements).toHaveLength(5);
  });

  it("matches as the API server does (inequality and notin match a missing label)", () => {
    const s = parse("tier in (front,back),env!=dev,team notin (ops),!legacy");
    expect(s.matches({ tier: "front" })).toBe(true);
    expect(s.matches({ tier: "front", env: "dev" })).toBe(false);
    expect(s.matches({ tier: "front", team: "ops" })).toBe(false);
    expect(s.matches({ tier: "front", legacy: "" })).toBe(false);
    expect(s.matches({ tier: "middle" })).toBe(false);
    expect(s.matches(undefined)).toBe(false);
    expect(parse("shard>3").matches({ shard: "4" })).toBe(true);
    expect(parse("shard>3").matches({ shard: "x" })).toBe(false);
    expect(parse("app=").matches({ app: "" })).toBe(true);
    expect(parse("app").matches({})).toBe(false);
  });

  it.each([
    ["tier in (a", /expected "," or "\)"/],
    ["!!!", /expected a label key, found "!" at position 2/],
    ["a b", /after "a", found "b" at position 3/],
    ["", /empty/],
    ["a=b,", /ends with ","/],
    ["tier in ()", /at least one value/],
    ["tier in a", /needs "\("/],
    ["-app=web", /name must be letters/],
    [`${"x".repeat(64)}=a`, /name must be at most 63/],
    [`${"a".repeat(254)}/app=a`, /prefix must be at most 253/],
    ["Example.com/app=a", /prefix must be a DNS subdomain/],
    ["/app=a", /prefix before "\/" must not be empty/],
    [`app=${"v".repeat(64)}`, /value .* at most 63/],
    ["app=-web", /value "-web" must be letters/],
    ["!app=web", /takes no operator/],
    ["shard>three", /needs an integer/],
  ])("refuses %j", (text, expected) => {
    expect(reason(text)).toMatch(expected);
  });
});
