// The output helpers with plain data: tables without a lone heading, and a tail's columns aligned as they widen.
import { describe, expect, it } from "vitest";
import { StreamColumns, renderTable } from "../src/output.js";

describe("renderTable", () => {
  it("pads columns two spaces apart under capital headings, trims line ends, and prints nothing for no rows", () => {
    expect(
      renderTable(
        ["id", "name"],
        [
          [1, "web"],
          [22, undefined],
        ],
      ),
    ).toBe("ID  NAME\n1   web\n22\n");
    expect(renderTable(["id", "name"], [])).toBe("");
  });
});

describe("renderTable with a width", () => {
  it("wraps the widest column's words to fit, never cutting a word; a table that fits is left as it is", () => {
    const rows = [["Artifact metadata (artifact_metadata)", "read", "fine-grained, UAT, IAT"]];
    expect(renderTable(["permission", "level", "applies to"], rows, { width: 80 })).toBe(
      "PERMISSION                             LEVEL  APPLIES TO\nArtifact metadata (artifact_metadata)  read   fine-grained, UAT, IAT\n",
    );
    const narrow = renderTable(["permission", "level", "applies to"], rows, { width: 42 });
    expect(narrow.split("\n").every((line) => line.length <= 42)).toBe(true);
    expect(narrow).toBe(
      "PERMISSION           LEVEL  APPLIES TO\nArtifact metadata    read   fine-grained,\n(artifact_metadata)         UAT, IAT\n",
    );
    // A word longer than the room left keeps its length: the line is wider rather than the word cut.
    expect(renderTable(["k", "v"], [["tokens", "a".repeat(50)]], { width: 20, heading: false })).toBe(`tokens  ${"a".repeat(50)}\n`);
  });
});

describe("StreamColumns", () => {
  it("pads each column to the widest value seen so far; the last column is left as it is", () => {
    const columns = new StreamColumns();
    expect(columns.line(["PushEvent", "octo", "acme/web", "refs/heads/main"])).toBe("PushEvent  octo  acme/web  refs/heads/main\n");
    expect(columns.line(["WatchEvent", "hubot", "acme/api", "started"])).toBe("WatchEvent  hubot  acme/api  started\n");
    expect(columns.line(["PushEvent", "octo", "acme/web", ""])).toBe("PushEvent   octo   acme/web\n");
  });
});

describe("StreamColumns with usual widths", () => {
  it("lines up the first lines with later, wider ones", () => {
    const columns = new StreamColumns([10, 5]);
    expect(columns.line(["PushEvent", "octo", "x"])).toBe("PushEvent   octo   x\n");
    expect(columns.line(["WatchEvent", "hubot", "y"])).toBe("WatchEvent  hubot  y\n");
  });
});
