// The controller image's Dockerfile as data: its instructions by stage, and the environment its runtime stage sets,
// so that the tests and the benchmark run the bundle as the image runs it.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The controller image's Dockerfile. */
export const DOCKERFILE = fileURLToPath(new URL("../../packages/controller/Dockerfile", import.meta.url));

/** One Dockerfile instruction: its keyword (upper case) and the rest of its line. */
export interface DockerInstruction {
  keyword: string;
  args: string;
}

/** Dockerfile instructions with continuation lines joined and comments dropped, grouped by stage (each from its FROM). */
export function dockerStages(text = readFileSync(DOCKERFILE, "utf8")): DockerInstruction[][] {
  const stages: DockerInstruction[][] = [];
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  for (const line of lines) {
    const [keyword, ...rest] = line.split(/\s+/);
    const instruction = { keyword: keyword!.toUpperCase(), args: rest.join(" ") };
    if (instruction.keyword === "FROM") stages.push([instruction]);
    else stages.at(-1)?.push(instruction);
  }
  return stages;
}

/** The variables the runtime (last) stage sets with `ENV KEY=value ...`. */
export function imageEnv(text?: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { keyword, args } of dockerStages(text).at(-1) ?? []) {
    if (keyword !== "ENV") continue;
    for (const pair of args.split(/\s+/)) {
      const at = pair.indexOf("=");
      if (at <= 0) throw new Error(`the Dockerfile's ENV ${args} is not in KEY=value form`);
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}
