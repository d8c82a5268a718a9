// The runner's files a step writes to: GITHUB_OUTPUT (outputs, as `name<<delimiter` blocks) and GITHUB_STEP_SUMMARY
// (the job summary). Written only there, through the client's bounded-file rule: an existing regular file, opened
// without waiting (a FIFO is refused at once), within the runner's bound. When the runner gave no such file, nothing
// is written and the caller warns: no fallback to the deprecated `::set-output` command in the log.
import { randomUUID } from "node:crypto";
import { appendToBoundedFile, BoundedFileError } from "@shiplog/client/internal";

/** The runner keeps at most 1 MiB of a step's outputs, and of its summary. */
export const RUNNER_FILE_MAX_BYTES = 1024 * 1024;

export type RunnerFile = "GITHUB_OUTPUT" | "GITHUB_STEP_SUMMARY";

/** Outputs as the runner's file command reads them: each value between a random delimiter's lines. */
export function outputFileCommands(outputs: Record<string, string>): string {
  return Object.entries(outputs)
    .map(([name, value]) => {
      let delimiter = `ghadelimiter_${randomUUID()}`;
      while (name.includes(delimiter) || value.includes(delimiter)) delimiter = `ghadelimiter_${randomUUID()}`;
      return `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
    })
    .join("");
}

/**
 * Appends `text` to the runner file `variable` names; undefined when written, else why not, in one line naming the
 * variable (unset, not a regular file, missing, too large, unwritable).
 */
export function appendToRunnerFile(variable: RunnerFile, text: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = env[variable];
  if (path === undefined || path === "") return `${variable} is not set (the runner sets it; outside a runner nothing is written)`;
  try {
    appendToBoundedFile(path, text, {
      setting: variable,
      holds: `the step's ${variable === "GITHUB_OUTPUT" ? "outputs" : "summary"}`,
      maxBytes: RUNNER_FILE_MAX_BYTES,
    });
    return undefined;
  } catch (error) {
    if (error instanceof BoundedFileError) return error.message;
    return `${variable}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
