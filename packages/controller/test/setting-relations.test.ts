// The rules between two settings as pure data: each kind evaluated on plain values, at its edges.
import { describe, expect, it } from "vitest";
import { relationProblem, type SettingRelation } from "../src/config/setting-relations.js";

const atLeast: SettingRelation = { kind: "order", setting: "max", than: "min", factor: 1, orEqual: true, message: "max below min" };
const longer: SettingRelation = { kind: "order", setting: "renew", than: "retry", factor: 1.2, orEqual: false, message: "too short" };
const disjoint: SettingRelation = { kind: "disjoint", setting: "exclude", than: "include", message: "both" };

describe("rules between two settings", () => {
  it("an order with equal values holds only when it says ≥", () => {
    expect(relationProblem(atLeast, { max: 5, min: 5 })).toBeUndefined();
    expect(relationProblem(atLeast, { max: 4, min: 5 })).toBe("max below min");
    expect(relationProblem(longer, { renew: 2400, retry: 2000 })).toBe("too short");
    expect(relationProblem(longer, { renew: 2401, retry: 2000 })).toBeUndefined();
  });

  it("two lists that share entries name them, in the setting's order", () => {
    expect(relationProblem(disjoint, { exclude: ["c", "b", "a"], include: ["a", "b"] })).toBe("b, a both");
    expect(relationProblem(disjoint, { exclude: ["c"], include: ["a", "b"] })).toBeUndefined();
    expect(relationProblem(disjoint, { exclude: [], include: [] })).toBeUndefined();
  });
});
