// The bounded-file rule shared by the controller, the CLI and the action: a regular file of bounded size, named with
// its rule when it is not, never waited on, never read past its bound, and a secret never quoted.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BoundedFileError, appendToBoundedFile, readBoundedFile } from "@shiplog/client/internal";
import { tempDir } from "../../../test/kit/temp-dir.js";

const SECRET = "ghs_BoundedFileSecret0123456789";
let dir: string;

beforeAll(() => {
  dir = tempDir("shiplog-bounded-");
  execFileSync("mkfifo", [join(dir, "fifo")]);
  mkdirSync(join(dir, "sub"));
  writeFileSync(join(dir, "empty"), "");
  writeFileSync(join(dir, "ok"), "hello\n");
  writeFileSync(join(dir, "big"), "");
  truncateSync(join(dir, "big"), 10 * 1024 * 1024);
  symlinkSync(join(dir, "fifo"), join(dir, "link-to-fifo"));
});

const options = { setting: "SETTING", holds: "the token", maxBytes: 1024, secret: true };
function refusal(path: string, opts: Partial<typeof options> = {}): BoundedFileError {
  try {
    readBoundedFile(path, { ...options, ...opts });
  } catch (error) {
    expect(error).toBeInstanceOf(BoundedFileError);
    return error as BoundedFileError;
  }
  throw new Error(`${path} was read`);
}

describe("readBoundedFile", () => {
  it("reads a regular file within its bound", () => {
    expect(readBoundedFile(join(dir, "ok"), options)).toBe("hello\n");
  });

  it.each([
    ["a FIFO (not waited on)", () => join(dir, "fifo"), "regular file", /is a named pipe \(FIFO\), not a regular file/],
    [
      "a symbolic link to a FIFO",
      () => join(dir, "link-to-fifo"),
      "regular file",
      /link-to-fifo" \(a symbolic link to \/.*\/fifo\) is a named pipe \(FIFO\)/,
    ],
    ["/dev/zero (not read)", () => "/dev/zero", "regular file", /"\/dev\/zero" is a character device/],
    ["a directory", () => join(dir, "sub"), "regular file", /is a directory, not a regular file/],
    ["an oversized file", () => join(dir, "big"), "at most 1 KiB", /is 10485760 bytes, more than the 1 KiB the token may take/],
    ["an empty file", () => join(dir, "empty"), "non-empty", /is empty: it must hold the token/],
    ["a missing file", () => join(dir, "missing"), "existing file", /does not exist/],
    [
      "a PEM key given as the path",
      () => "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
      "a path, not the content",
      /holds key content \(a PEM block\) where the path of a file belongs/,
    ],
  ])("%s: one line naming the setting and the rule", (_, path, rule, detail) => {
    const error = refusal(path());
    expect(error.code).toBe("file_unusable");
    expect(error.rule).toBe(rule);
    expect(error.message).toMatch(detail);
    expect(error.message.split("\n")).toHaveLength(1);
    expect(error.message).toMatch(new RegExp(`^SETTING: .* \\[rule: ${rule.replace(/[()]/g, "\\$&")}\\]$`));
  });

  it("a secret given where the path belongs is never quoted", () => {
    const error = refusal(SECRET);
    expect(error.message).not.toContain(SECRET);
    expect(error.message).toContain("not shown");
    expect(refusal(SECRET, { secret: false }).message).toContain(SECRET);
  });
});

describe("appendToBoundedFile", () => {
  it("appends to a regular file; refuses a FIFO without waiting for a reader, and a file past its bound", () => {
    appendToBoundedFile(join(dir, "ok"), "more\n", options);
    expect(readFileSync(join(dir, "ok"), "utf8")).toBe("hello\nmore\n");
    expect(() => appendToBoundedFile(join(dir, "fifo"), "x", options)).toThrow(
      /is a named pipe \(FIFO\), not a regular file \[rule: regular file\]/,
    );
    expect(() => appendToBoundedFile(join(dir, "ok"), "x".repeat(2000), options)).toThrow(/\[rule: at most 1 KiB\]/);
    expect(() => appendToBoundedFile(join(dir, "missing"), "x", options)).toThrow(/does not exist \[rule: existing file\]/);
  });
});
