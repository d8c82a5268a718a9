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
}

export interface StorageRecordReport {
  outcome: "created" | "dry-run";
  name: string;
  digest: string;
  registry_url: string;
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
      "| Name | Digest | Registry | Status | Repository | Outcome | Record id |",
      "| --- | --- | --- | --- | --- | --- | --- |",
    );
    for (const r of report.storageRecords) {
      const id = r.record?.id;
      const status = (r.record?.status as string | undefined) ?? r.status ?? "";
      lines.push(
        `| ${cell(r.name)} | ${code(r.digest.slice(0, 19))}… | ${cell(r.registry_url)} | ${cell(status)} | ` +
          `${cell(r.github_repository)} | ${r.outcome} | ${id === undefined ? "" : cell(String(id))} |`,
      );
    }
    lines.push("");
  }
  if (!report.tag && report.storageRecords.length === 0 && !report.failures?.length) lines.push("Nothing was created.", "");
  return withinBytes(lines, maxBytes);
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
