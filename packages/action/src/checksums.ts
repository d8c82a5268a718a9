// `subject-checksums`: artifacts named by a checksums file in sha256sum's format (`<hex>  <name>`, or `<hex> *<name>`
// for binary mode), as actions/attest takes them: a path to the file, or the same lines inline.
import { BoundedFileError, readBoundedFile } from "@shiplog/client/internal";
import type { Subject } from "./subjects.js";

const LINE = /^(\\?)([0-9a-fA-F]+) [ *](.+)$/;

/** The subjects of checksum lines, or the problems (each naming its line) that stop them. */
export function parseChecksums(text: string, source: string): { subjects: Subject[]; problems: string[] } {
  const subjects: Subject[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const where = `${source} line ${index + 1}`;
    const match = LINE.exec(line);
    if (!match) {
      problems.push(`${where}: expected "<sha256 hex>  <name>" as sha256sum writes it, got ${JSON.stringify(line.slice(0, 80))}`);
      return;
    }
    const [, escaped, hex, rawName] = match as unknown as [string, string, string, string];
    if (hex.length !== 64) {
      problems.push(`${where}: ${hex.length} hex digits is not a sha256 digest (64); storage records take sha256 only`);
      return;
    }
    // sha256sum escapes names holding a backslash or newline and marks the line with a leading backslash.
    const name = escaped ? rawName.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\")) : rawName;
    subjects.push({ name, digest: `sha256:${hex.toLowerCase()}` });
  });
  if (subjects.length === 0 && problems.length === 0) problems.push(`${source} lists no checksums`);
  return { subjects, problems };
}

/** Whether the input holds checksum lines itself rather than a file's path. */
export function isInlineChecksums(value: string): boolean {
  return value.includes("\n") || LINE.test(value.trim());
}

/** Most bytes a checksums file may hold: far more lines than the subjects one run records (MAX_SUBJECTS). */
export const MAX_CHECKSUMS_FILE_BYTES = 4 * 1024 * 1024;

/**
 * The subjects of the subject-checksums input: lines inline, or the file the input names, a regular file of at most
 * MAX_CHECKSUMS_FILE_BYTES (a FIFO is not waited on, a device not read). `rule` names the rule a problem broke.
 */
export function readChecksums(value: string): { subjects: Subject[]; problems: string[]; rule?: string } {
  if (isInlineChecksums(value)) return parseChecksums(value, "subject-checksums");
  let text: string;
  try {
    text = readBoundedFile(value, { setting: "subject-checksums", holds: "a checksums file", maxBytes: MAX_CHECKSUMS_FILE_BYTES });
  } catch (error) {
    if (!(error instanceof BoundedFileError)) throw error;
    return { subjects: [], problems: [`subject-checksums: ${error.detail}`], rule: error.rule };
  }
  return parseChecksums(text, `subject-checksums ${value}`);
}
