// The new subject sources as plain data: checksum lines, image names, and duplicate digests.
import { describe, expect, it } from "vitest";
import { isInlineChecksums, parseChecksums } from "../src/checksums.js";
import { collapseDuplicateDigests } from "../src/duplicate-subjects.js";
import { imageLocation } from "../src/image-subject.js";

const hex = (c: string) => c.repeat(64);

describe("parseChecksums", () => {
  it("reads sha256sum's text and binary lines, skips blanks and comments, lowercases the digest", () => {
    const text = `# release\n${hex("a")}  web.tgz\n\n${hex("B")} *web.zip\n${hex("c")}  dir/with space.txt\r\n`;
    expect(parseChecksums(text, "SUMS")).toEqual({
      subjects: [
        { name: "web.tgz", digest: `sha256:${hex("a")}` },
        { name: "web.zip", digest: `sha256:${hex("b")}` },
        { name: "dir/with space.txt", digest: `sha256:${hex("c")}` },
      ],
      problems: [],
    });
  });

  it("unescapes names sha256sum escaped (a leading backslash)", () => {
    expect(parseChecksums(`\\${hex("d")}  a\\\\b\\nc`, "x").subjects).toEqual([{ name: "a\\b\nc", digest: `sha256:${hex("d")}` }]);
  });

  it("names the line of each problem: not the format, not sha256, or nothing at all", () => {
    expect(parseChecksums(`${hex("a")}  ok\nSHA256 (x) = abc\n${"e".repeat(128)}  big`, "SUMS").problems).toEqual([
      'SUMS line 2: expected "<sha256 hex>  <name>" as sha256sum writes it, got "SHA256 (x) = abc"',
      "SUMS line 3: 128 hex digits is not a sha256 digest (64); storage records take sha256 only",
    ]);
    expect(parseChecksums("\n# only a comment\n", "SUMS").problems).toEqual(["SUMS lists no checksums"]);
  });

  it("tells inline lines from a path", () => {
    expect(isInlineChecksums(`${hex("a")}  web.tgz`)).toBe(true);
    expect(isInlineChecksums("dist/SHA256SUMS")).toBe(false);
    expect(isInlineChecksums("a\nb")).toBe(true);
  });
});

describe("imageLocation", () => {
  it("a fully qualified image name gives its registry and repository", () => {
    expect(imageLocation("ghcr.io/acme/web")).toEqual({ registryUrl: "https://ghcr.io", repository: "acme/web" });
    expect(imageLocation("localhost:5000/web")).toEqual({ registryUrl: "https://localhost:5000", repository: "web" });
  });

  it("a name without a registry host is not an image reference", () => {
    for (const name of ["web", "acme/web", "my-app.tgz"]) expect(imageLocation(name), name).toBeUndefined();
  });

  it("a tag, a digest or an uppercase repository is refused with what to do", () => {
    expect(imageLocation("ghcr.io/acme/web:1.4.0")).toEqual({ problem: expect.stringContaining("without :tag") });
    expect(imageLocation(`ghcr.io/acme/web@sha256:${hex("a")}`)).toEqual({ problem: expect.stringContaining("without @digest") });
    expect(imageLocation("ghcr.io/Acme/Web")).toEqual({ problem: expect.stringContaining("lowercase") });
  });
});

describe("collapseDuplicateDigests", () => {
  it("keeps the first subject of each digest and says what was dropped", () => {
    const result = collapseDuplicateDigests([
      { name: "web.tgz", digest: `sha256:${hex("a")}`, file: "dist/web.tgz" },
      { name: "other", digest: `sha256:${hex("b")}` },
      { name: "copy.tgz", digest: `sha256:${hex("a")}` },
    ]);
    expect(result.subjects.map((s) => s.name)).toEqual(["web.tgz", "other"]);
    expect(result.notices).toEqual([
      `sha256:${hex("a")} is given twice, as web.tgz (dist/web.tgz) and as copy.tgz: one storage record, named web.tgz`,
    ]);
  });
});
