import { serviceUrlProblem } from "@shiplog/client";
import { optional, type InputProblem, type RawInputs, type RunContext } from "./inputs.js";
import { planStorage, type StoragePlan } from "./storage-inputs.js";
import { planTag, type TagPlan } from "./tag-inputs.js";

/** Everything the action will do, from inputs that passed every check. */
export interface ActionPlan {
  token: string;
  apiUrl: string;
  dryRun: boolean;
  owner: string;
  repo: string;
  tag: TagPlan | undefined;
  storage: StoragePlan | undefined;
}

const BOOLEAN_TRUE = ["true", "True", "TRUE"];
const BOOLEAN_FALSE = ["false", "False", "FALSE"];

/** Checks every input and builds what the action will send; returns every problem at once. */
export function planFromInputs(
  raw: RawInputs,
  context: RunContext,
): { plan: ActionPlan; problems: [] } | { plan?: undefined; problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const [owner = "", repo = ""] = (context.repository ?? "").split("/");
  if (!owner || !repo) {
    problems.push({
      input: "GITHUB_REPOSITORY",
      rule: "owner/repo",
      message: "GITHUB_REPOSITORY must be set to owner/repo (the runner sets it)",
    });
  }

  const token = raw.token ?? "";
  if (token === "")
    problems.push({ input: "token", rule: "required", message: "token is required (the default is the workflow's GITHUB_TOKEN)" });

  const apiUrl = optional(raw["api-url"]) ?? context.apiUrl;
  const apiUrlProblem = checkApiUrl(apiUrl);
  if (apiUrlProblem) problems.push(apiUrlProblem);

  let dryRun = false;
  const dryRunRaw = optional(raw["dry-run"]) ?? "false";
  if (BOOLEAN_TRUE.includes(dryRunRaw)) dryRun = true;
  else if (!BOOLEAN_FALSE.includes(dryRunRaw)) {
    problems.push({ input: "dry-run", rule: "true or false", message: `dry-run must be true or false, got ${JSON.stringify(dryRunRaw)}` });
  }

  const tag = planTag(raw, context, owner, repo, problems);
  const storage = planStorage(raw, owner, repo, problems);
  const asked = [raw.tag, raw.tags, raw["subject-digest"], raw["subject-path"], raw["subject-checksums"]].some(
    (value) => optional(value) !== undefined,
  );
  if (!asked && !problems.some((p) => p.rule.startsWith("needs"))) {
    problems.push({
      input: "tag",
      rule: "something to do",
      message: "give tag, tags, subject-digest, subject-path or subject-checksums: there is nothing to create",
    });
  }

  if (problems.length > 0) return { problems };
  return { plan: { token, apiUrl: apiUrl.replace(/\/+$/, ""), dryRun, owner, repo, tag, storage }, problems: [] };
}

/** The API URL carries the token: the client's rule for service URLs (https unless loopback, no credentials). */
function checkApiUrl(apiUrl: string): InputProblem | undefined {
  const problem = serviceUrlProblem(apiUrl);
  return problem && { input: "api-url", rule: problem.rule, message: `api-url ${problem.message}` };
}
