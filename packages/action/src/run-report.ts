import { isAbsolute, relative } from "node:path";

/** What one run did (or, in a dry run, would do): the source of the outputs and the job summary. */
export interface RunReport {
  dryRun: boolean;
  repository: string;
  /** The first tag (what the single-tag outputs describe). */
  tag?: TagReport;
  /** Every tag, in the order they were made: the given ones, then the derived floating ones. */
  tags?: TagReport[];
  storageRecords: StorageRecordReport[];
  /** What failed, each explained (the tag and the records are attempted independently). */
  failures?: { title: string; message: string }[];
  /** What was let pass with a warning (storage-permission-missing: warn). */
  warnings?: { title: string; message: string }[];
}

export interface TagReport {
  outcome: "created" | "skipped" | "updated" | "dry-run" | "failed" | "not-attempted";
  ref: string;
  /** The tag object's sha (absent in a dry run: nothing was created). */
  sha?: string;
  object: { type: string; sha: string };
  message: string;
  /** In a dry run: the version tag a floating tag moves with (derived-tags). */
  derivedFrom?: string;
  /** In a dry run: what an existing tag of this name would meet (if-tag-exists). */
  ifExists?: string;
}

export interface StorageRecordReport {
  outcome: "created" | "dry-run";
  name: string;
  digest: string;
  registry_url: string;
  /** The repository within the registry (storage record `repository`). */
  repository?: string;
  status?: string;
  version?: string;
  github_repository?: string;
  file?: string;
  /** The record as the service returned it. */
  record?: Record<string, unknown>;
}

/** The action's outputs, as strings for the runner. */
export function runOutputs(report: RunReport): Record<string, string> {
  return {
    "tag-sha": report.tag?.sha ?? "",
    "tag-ref": report.tag?.ref ?? "",
    "tag-outcome": report.tag?.outcome ?? "",
    tags: JSON.stringify(
      (report.tags ?? (report.tag ? [report.tag] : [])).map((t) => ({
        tag: t.ref.replace(/^refs\/tags\//, ""),
        ref: t.ref,
        outcome: t.outcome,
        sha: t.sha ?? "",
      })),
    ),
    "storage-records": JSON.stringify(report.storageRecords.map((r) => r.record ?? plannedRecord(r))),
  };
}

function plannedRecord(r: StorageRecordReport): Record<string, unknown> {
  const out: Record<string, unknown> = { name: r.name, digest: r.digest, registry_url: r.registry_url };
  if (r.version !== undefined) out.version = r.version;
  if (r.status !== undefined) out.status = r.status;
  if (r.github_repository !== undefined) out.github_repository = r.github_repository;
  return out;
}

const cell = (value: string | undefined) => (value ?? "").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
const code = (value: string | undefined) => (value ? `\`${cell(value)}\`` : "");
const short = (sha: string | undefined) => (sha ? sha.slice(0, 12) : "");

/** The job summary: a table of the tag and of the storage records, created or (dry run) planned, within `maxBytes`. */
export function renderSummary(report: RunReport, maxBytes = SUMMARY_MAX_BYTES): string {
  const lines: string[] = [`## shiplog${report.dryRun ? " (dry run: nothing was sent)" : ""}`, ""];
  for (const failure of [...(report.failures ?? []), ...(report.warnings ?? [])])
    lines.push(`> **${cell(failure.title)}**: ${cell(failure.message)}`, "");
  const tags = report.tags ?? (report.tag ? [report.tag] : []);
  if (tags.length > 0) {
    lines.push(
      `### ${tags.length === 1 ? "Tag" : `Tags (${tags.length})`} in ${cell(report.repository)}`,
      "",
      "| Tag | Outcome | Tag object | Object | Message |",
      "| --- | --- | --- | --- | --- |",
    );
    for (const t of tags) {
      lines.push(
        `| ${code(t.ref)} | ${t.outcome} | ${code(short(t.sha))} | ${t.object.type} ${code(short(t.object.sha))} | ${cell(t.message.split("\n")[0])} |`,
      );
    }
    lines.push("");
  }
  if (report.storageRecords.length > 0) {
    lines.push(
      `### Storage records (${report.storageRecords.length})`,
      "",
      "| Name | Digest | Registry | Registry repository | Status | Code repository | Outcome | Record id |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const r of report.storageRecords) {
      const id = r.record?.id;
      const status = (r.record?.status as string | undefined) ?? r.status ?? "";
      lines.push(
        `| ${cell(r.name)} | ${code(r.digest.slice(0, 19))}… | ${cell(r.registry_url)} | ${cell(r.repository)} | ${cell(status)} | ` +
          `${cell(r.github_repository)} | ${r.outcome} | ${id === undefined ? "" : cell(String(id))} |`,
      );
    }
    lines.push("");
  }
  if (!report.tag && report.storageRecords.length === 0 && !report.failures?.length) lines.push("Nothing was created.", "");
  return withinBytes(lines, maxBytes);
}

/** Most lines of the plan a dry run prints to the step's log; the rest is counted ("and N more"). */
export const PLAN_LOG_MAX_LINES = 50;

/** A file's path relative to `cwd` when it lies inside it (the workspace), else as it is. */
const shownPath = (file: string, cwd: string | undefined) => {
  const inside = cwd === undefined ? undefined : relative(cwd, file);
  return inside && !inside.startsWith("..") && !isAbsolute(inside) ? inside : file;
};

/** One line of text from a value that may hold line breaks (a message, a file's name). */
const oneLine = (value: string) => value.replace(/\r?\n|\r/g, " ");

/**
 * What a dry run would write, for the step's log: a heading, then each tag and storage record on a line of its own,
 * at most `maxLines` of them and a last line counting the others; files inside `cwd` (the workspace) relative to
 * it. Every line is indented, so no value can begin a workflow command (`::`).
 */
export function planLog(report: RunReport, maxLines = PLAN_LOG_MAX_LINES, cwd?: string): string[] {
  const tags = report.tags ?? (report.tag ? [report.tag] : []);
  const records = report.storageRecords;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const parts = [tags.length > 0 && count(tags.length, "tag"), records.length > 0 && count(records.length, "storage record")];
  const items = [
    ...tags.map((t) => {
      const name = t.ref.replace(/^refs\/tags\//, "");
      const how = t.derivedFrom ? `moved with ${t.derivedFrom}` : `if it exists: ${t.ifExists ?? "skip"}`;
      return (
        `  tag ${oneLine(name)} in ${report.repository} → ${t.object.type} ${t.object.sha}, ` +
        `message ${JSON.stringify(oneLine(t.message.split("\n")[0] ?? ""))} (${how})`
      );
    }),
    ...records.map((r) => {
      const where = [
        r.repository !== undefined && `registry repository ${r.repository}`,
        r.github_repository !== undefined && `code repository ${r.github_repository}`,
        r.version !== undefined && `version ${r.version}`,
        r.status !== undefined && `status ${r.status}`,
        r.file !== undefined && `file ${shownPath(r.file, cwd)}`,
      ].filter((p) => p !== false);
      return `  storage record ${oneLine(r.name)} ${r.digest} in ${r.registry_url}${where.length > 0 ? ` (${oneLine(where.join(", "))})` : ""}`;
    }),
  ];
  const heading = `Dry run: nothing was sent. It would write ${parts.filter((p) => p !== false).join(" and ") || "nothing"}:`;
  if (items.length <= maxLines) return [heading, ...items];
  const shownTags = Math.min(tags.length, maxLines);
  const left = [
    tags.length > shownTags && count(tags.length - shownTags, "tag"),
    records.length > maxLines - shownTags && count(records.length - (maxLines - shownTags), "storage record"),
  ].filter((p) => p !== false);
  return [
    heading,
    ...items.slice(0, maxLines),
    `  ... and ${items.length - maxLines} more (${left.join(" and ")}): every one is in the job summary and the step's outputs`,
  ];
}

/** The runner keeps at most 1 MiB of a step's summary (it refuses a larger one). */
export const SUMMARY_MAX_BYTES = 1024 * 1024;

/** Room kept for the truncation note. */
const NOTE_BYTES = 512;

/** The lines joined, cut at a whole line with a note when they would exceed `maxBytes`. */
function withinBytes(lines: string[], maxBytes: number): string {
  const whole = lines.join("\n");
  if (Buffer.byteLength(whole) <= maxBytes) return whole;
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > maxBytes - NOTE_BYTES) break;
    kept.push(line);
    bytes += size;
  }
  kept.push(
    "",
    `> **Summary truncated** at ${kept.length - 1} of ${lines.length} lines: the runner keeps at most ` +
      `${Math.floor(maxBytes / 1024)} KiB of a step's summary. Every record is in the step's outputs (storage-records, tags).`,
    "",
  );
  return kept.join("\n");
}
