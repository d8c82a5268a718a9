// The token file read again while the controller runs follows the bounded-file rule too: a FIFO (or a device, or an
// oversized file) swapped in for the mounted Secret is not waited on nor read; the token read before is kept.
import { execFileSync } from "node:child_process";
import { renameSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileTokenSource, MAX_TOKEN_FILE_BYTES } from "../src/service/token-source.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

describe("FileTokenSource", () => {
  it("keeps the token it has when the file becomes a FIFO or grows past its bound; takes a new regular file", () => {
    const dir = tempDir("shiplog-token-source-");
    const path = join(dir, "token");
    writeFileSync(path, "first\n");
    const source = new FileTokenSource(path, "first");

    execFileSync("mkfifo", [join(dir, "fifo")]);
    renameSync(join(dir, "fifo"), path);
    expect(source.current()).toBe("first");
    expect(source.refresh()).toBe(false);

    writeFileSync(join(dir, "big"), "x");
    truncateSync(join(dir, "big"), MAX_TOKEN_FILE_BYTES + 1);
    renameSync(join(dir, "big"), path);
    expect(source.current()).toBe("first");

    writeFileSync(join(dir, "next"), "second\n");
    renameSync(join(dir, "next"), path);
    expect(source.current()).toBe("second");
  });
});
