import { spawn } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { CheckpointFileError, FileCheckpointStore } from "@shiplog/client";
import { tempDir } from "../../../test/kit/temp-dir.js";

// The file checkpoint store under kill -9: a real process saves checkpoints as fast as it can and is killed at
// arbitrary moments; the file it leaves is always a whole checkpoint, never a torn one.
const clientDist = join(dirname(fileURLToPath(import.meta.url)), "..", "dist", "index.js");
const WRITER = `
import { FileCheckpointStore } from ${JSON.stringify(clientDist)};
const store = new FileCheckpointStore(process.argv[2]);
const seen = [];
for (let n = 1; ; n++) {
  // Growing checkpoints (up to a feed's window), so a torn write would show as invalid JSON or a short list.
  seen.push([String(40_000_000_000 + n), new Date(n * 1000).toISOString()]);
  if (seen.length > 600) seen.shift();
  await store.save({ version: 1, listing: "GET /orgs/acme/events", validator: 'W/"' + n + '"', seen });
  process.stdout.write(".");
}
`;

it("a process killed with SIGKILL while saving leaves the previous or the next checkpoint, whole", async () => {
  const dir = tempDir("shiplog-checkpoint-file-");
  const script = join(dir, "writer.mjs");
  writeFileSync(script, WRITER);
  const path = join(dir, "feed.json");
  for (let round = 0; round < 3; round++) {
    const child = spawn(process.execPath, [script, path], { stdio: ["ignore", "pipe", "inherit"] });
    let saves = 0;
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        saves += chunk.length;
        // Kill at a different point each round, in the middle of the stream of saves.
        if (saves >= 20 + round * 37) {
          child.kill("SIGKILL");
          resolve();
        }
      });
    });
    await new Promise((resolve) => child.on("exit", resolve));
    const checkpoint = await new FileCheckpointStore(path).load();
    expect(checkpoint?.listing).toBe("GET /orgs/acme/events");
    const n = Number(/\d+/.exec(checkpoint!.validator!)![0]);
    expect(checkpoint!.seen).toHaveLength(Math.min(n, 600));
    expect(checkpoint!.seen.at(-1)![0]).toBe(String(40_000_000_000 + n));
  }
  // Temporary files killed writers left are removed when the checkpoint is next loaded.
  expect(readdirSync(dir).sort()).toEqual(["feed.json", "writer.mjs"]);
});

it("a missing file is no checkpoint yet; a file that is not JSON is an error naming the file, not a crash", async () => {
  const dir = tempDir("shiplog-checkpoint-file-");
  expect(await new FileCheckpointStore(join(dir, "none.json")).load()).toBeUndefined();
  writeFileSync(join(dir, "bad.json"), "{ not json");
  const error = await new FileCheckpointStore(join(dir, "bad.json")).load().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CheckpointFileError);
  expect((error as CheckpointFileError).code).toBe("checkpoint_file");
  expect((error as Error).message).toContain("bad.json");
  const unwritable = await new FileCheckpointStore(join(dir, "no-such-dir", "x.json"))
    .save({ version: 1, listing: "GET /events", seen: [] })
    .catch((e: unknown) => e);
  expect(unwritable).toBeInstanceOf(CheckpointFileError);
  expect((unwritable as Error).message).toMatch(/cannot be written \(ENOENT\)/);
});
