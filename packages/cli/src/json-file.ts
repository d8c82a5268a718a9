// A JSON file a flag names (`--file`): read under the bounded-file rule, parsed, every mistake one usage error.
import { BoundedFileError, readBoundedFile } from "@shiplog/client/internal";
import { UsageError } from "./cli-errors.js";

/** The parsed JSON of the file `--file` names; a usage error naming the file when it cannot be read or parsed. */
export function readJsonFile(path: string, options: { holds: string; maxBytes: number }): unknown {
  let text: string;
  try {
    // A regular file of bounded size: a FIFO is not waited on, /dev/zero not read until memory runs out.
    text = readBoundedFile(path, { setting: "--file", holds: options.holds, maxBytes: options.maxBytes });
  } catch (error) {
    if (error instanceof BoundedFileError) throw new UsageError(error.message);
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--file ${path}: not JSON (${(error as Error).message})`);
  }
}
