// File subjects: a glob's files are found and hashed a bounded number at a time (a release can match thousands).
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HASH_CONCURRENCY, fileDigest, fileSubjects, matchFiles } from "../src/subjects.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const COUNT = 200;
let dir: string;
const content = (i: number) => `artifact ${i}\n`;
const sha256 = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

beforeAll(() => {
  dir = tempDir("shiplog-subjects-");
  mkdirSync(join(dir, "out"));
  for (let i = 0; i < COUNT; i++) writeFileSync(join(dir, "out", `f${String(i).padStart(3, "0")}.bin`), content(i));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("fileSubjects", () => {
  it(`a glob of ${COUNT} files: each hashed correctly, in order, at most HASH_CONCURRENCY (${HASH_CONCURRENCY}) at a time`, async () => {
    const files = await matchFiles([join(dir, "out", "*.bin")], dir);
    expect(files).toHaveLength(COUNT);
    let open = 0;
    let mostOpen = 0;
    const subjects = await fileSubjects(files, undefined, {
      digest: async (path) => {
        mostOpen = Math.max(mostOpen, ++open);
        try {
          return await fileDigest(path);
        } finally {
          open--;
        }
      },
    });
    expect(subjects.map((s) => [s.name, s.digest])).toEqual(
      Array.from({ length: COUNT }, (_, i) => [`f${String(i).padStart(3, "0")}.bin`, sha256(content(i))]),
    );
    expect(HASH_CONCURRENCY).toBe(8);
    expect(mostOpen).toBe(HASH_CONCURRENCY);
  });

  it("the bound is an option; a failing file fails the whole set", async () => {
    const files = await matchFiles([join(dir, "out", "f00*.bin")], dir);
    let open = 0;
    let mostOpen = 0;
    const counted = async (path: string) => {
      mostOpen = Math.max(mostOpen, ++open);
      await new Promise((resolve) => setImmediate(resolve));
      open--;
      return fileDigest(path);
    };
    expect((await fileSubjects(files, "app", { concurrency: 2, digest: counted })).map((s) => s.name)).toEqual(Array(10).fill("app"));
    expect(mostOpen).toBe(2);
    await expect(fileSubjects([...files, join(dir, "out", "missing.bin")], undefined)).rejects.toThrow(
      /^subject-path: .*missing\.bin does not exist \(any more\) \(ENOENT\)$/,
    );
  });
});
