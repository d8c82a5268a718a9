// The client's folders are layers: a module imports from its own folder and from the folders below it, never from
// one above (the package's root holds the client and the entry points; each folder below it one concern). The
// transport knows no endpoint: what does (the declared-token guard) is a plugin the client adds.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../src");

/** Top to bottom: a folder may import from those after it. */
const LAYERS = [".", "api", "pollers", "access", "endpoints", "permissions", "schemas", "transport", "errors", "timing", "model"];

/** Every relative import of every source file, as [from, to] paths relative to src. */
function importArrows(): [string, string][] {
  const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  return files.flatMap((file) =>
    ts
      .preProcessFile(readFileSync(join(src, file), "utf8"), true, true)
      .importedFiles.filter((i) => i.fileName.startsWith("."))
      .map((i): [string, string] => [file, relative(src, resolve(src, dirname(file), i.fileName.replace(/\.js$/, ".ts")))]),
  );
}

const folderOf = (file: string): string => dirname(file);

describe("the client's source layout", () => {
  const arrows = importArrows();

  it("names every folder in its layers, and every import resolves to a source file", () => {
    expect(new Set(arrows.flatMap(([from, to]) => [folderOf(from), folderOf(to)]))).toEqual(new Set(LAYERS));
    expect(arrows.filter(([, to]) => !existsSync(join(src, to)))).toEqual([]);
  });

  it("has no import that runs back up between folders", () => {
    const upward = arrows.filter(([from, to]) => LAYERS.indexOf(folderOf(to)) < LAYERS.indexOf(folderOf(from)));
    expect(upward.map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });

  it("keeps the transport free of endpoints, schemas and permissions", () => {
    const below = new Set(["transport", "errors", "timing"]);
    const outside = arrows.filter(([from, to]) => folderOf(from) === "transport" && !below.has(folderOf(to)));
    expect(outside.map(([from, to]) => `${from} -> ${to}`)).toEqual([]);
  });
});
