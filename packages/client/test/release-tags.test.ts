// The release-tag rules the action and `shiplog tag create` share, as plain data.
import { describe, expect, it } from "vitest";
import { derivedTagNames, releaseTags } from "@shiplog/client";

describe("derivedTagNames", () => {
  it("a release version gives its major (and minor) floating tags, keeping the v prefix or its absence", () => {
    expect(derivedTagNames("v1.4.0", "major-minor")).toEqual(["v1", "v1.4"]);
    expect(derivedTagNames("v1.4.0", "major")).toEqual(["v1"]);
    expect(derivedTagNames("2.0.10", "major-minor")).toEqual(["2", "2.0"]);
    expect(derivedTagNames("v1.4.0", "none")).toEqual([]);
  });

  it("pre-releases, builds, partial and non-versions move nothing", () => {
    for (const tag of ["v1.4.0-rc.1", "v1.4.0+build.5", "v1.4", "latest", "v01.2.3", "release-1.2.3"]) {
      expect(derivedTagNames(tag, "major-minor"), tag).toEqual([]);
    }
  });
});

describe("releaseTags", () => {
  it("the given names first (duplicates dropped) with the caller's if_exists, then the derived ones, always update", () => {
    expect(releaseTags(["v1.4.0", "latest", "v1.4.0"], "major-minor", "skip")).toEqual([
      { tag: "v1.4.0", ifExists: "skip" },
      { tag: "latest", ifExists: "skip" },
      { tag: "v1", derivedFrom: "v1.4.0", ifExists: "update" },
      { tag: "v1.4", derivedFrom: "v1.4.0", ifExists: "update" },
    ]);
  });

  it("a derived name that is also given is not derived again", () => {
    expect(releaseTags(["v1.4.0", "v1"], "major-minor", "fail").map((t) => [t.tag, t.ifExists])).toEqual([
      ["v1.4.0", "fail"],
      ["v1", "fail"],
      ["v1.4", "update"],
    ]);
  });

  it("two versions that would move the same floating tag are refused, naming both", () => {
    expect(() => releaseTags(["v1.4.0", "v1.5.0"], "major", "skip")).toThrow("v1 would be derived from both v1.4.0 and v1.5.0");
    expect(releaseTags(["v1.4.0", "v2.0.0"], "major", "skip").map((t) => t.tag)).toEqual(["v1.4.0", "v2.0.0", "v1", "v2"]);
  });
});
