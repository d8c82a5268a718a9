import {
  AuthenticationError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  RateLimitedError,
  RequestValidationError,
  ServiceValidationError,
  ShiplogError,
  TagExistsError,
  type AcceptedPermissionSet,
} from "@shiplog/client";

/** The step that failed, to say what was being attempted. */
export type FailedStep =
  | { kind: "tag"; repository: string; tag: string }
  | { kind: "storage-record"; org: string; subject: string; githubRepository: string };

/** An annotation a person can act on: what failed, why, and what to change. */
export interface FailureExplanation {
  title: string;
  message: string;
}

/** What each step needs when the service's answer does not say (it normally does, in X-Accepted-Service-Permissions). */
const STEP_PERMISSIONS: Record<FailedStep["kind"], AcceptedPermissionSet[]> = {
  tag: [[{ permission: "contents", access: "write" }]],
  "storage-record": [[{ permission: "artifact_metadata", access: "write" }]],
};

const title = (permission: string) => {
  const words = permission.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** `contents: write` as a workflow's `permissions:` block spells it. */
const workflowKey = (permission: string) => permission.replace(/_/g, "-");

/** Names the permission and access level an endpoint needs, and where to grant it. */
export function describePermissionNeed(sets: readonly AcceptedPermissionSet[]): string {
  const alternatives = sets.map((set) => set.map((p) => `${title(p.permission)} (${p.access})`).join(" and ")).join(", or ");
  const first = sets[0] ?? [];
  const yaml = first.map((p) => `${workflowKey(p.permission)}: ${p.access}`).join(", ");
  return `It needs the ${alternatives} permission: add \`permissions: { ${yaml} }\` to the job for GITHUB_TOKEN, or grant a fine-grained token or app ${first
    .map((p) => `${title(p.permission)}: ${p.access === "write" ? "Read and write" : "Read"}`)
    .join(", ")} on the repository.`;
}

function what(step: FailedStep): string {
  return step.kind === "tag"
    ? `Creating tag ${step.tag} in ${step.repository}`
    : `Recording storage of ${step.subject} in organization ${step.org} (code repository ${step.githubRepository})`;
}

/** Turns an error of a step into an annotation that says what to fix. */
export function explainFailure(error: unknown, step: FailedStep): FailureExplanation {
  const doing = what(step);
  if (error instanceof TagExistsError) {
    return {
      title: "Tag already exists",
      message: error.sameTarget
        ? `${error.message}. Set if-tag-exists: skip to accept a tag that already matches.`
        : `${error.message}. The action never moves an existing tag: delete it first, or choose another tag name.`,
    };
  }
  if (error instanceof ForbiddenError) {
    const sets = error.acceptedPermissions.length > 0 ? error.acceptedPermissions : STEP_PERMISSIONS[step.kind];
    return {
      title: "Permission missing",
      message: `${doing} was refused (${error.method} ${error.route} answered 403: ${error.serviceMessage}). ${describePermissionNeed(sets)}`,
    };
  }
  if (error instanceof AuthenticationError) {
    return {
      title: "Token refused",
      message: `${doing} failed: the service refused the token (401). Check the token input: it is missing, expired or revoked.`,
    };
  }
  if (error instanceof NotFoundError) {
    const missing = missingRepositories(error);
    if (step.kind === "storage-record" && missing) {
      return {
        title: "Repository not found",
        message: `${doing} failed (404: ${missing.cause}: ${JSON.stringify(missing.repositories)}). Set github-repository to a repository of ${step.org}.`,
      };
    }
    return {
      title: "Not found",
      message:
        `${doing} failed: ${error.method} ${error.route} answered 404. ` +
        `The ${step.kind === "tag" ? "repository" : "organization"} does not exist or the token cannot see it; ` +
        "check the token's repository access.",
    };
  }
  if (error instanceof ConflictError) {
    return { title: "Repository is empty", message: `${doing} failed (409: ${error.serviceMessage}). Push a commit before tagging.` };
  }
  if (error instanceof ServiceValidationError) {
    const details = error.errors.map((e) => e.message ?? `${e.field} ${e.code}`).join("; ");
    const hint =
      step.kind === "tag"
        ? " Check tag-object (a sha present in the repository) and tag-type (the object's type)."
        : " Check the subject and registry inputs.";
    return {
      title: "Rejected by the service",
      message: `${doing} was rejected (422: ${error.serviceMessage}${details ? `: ${details}` : ""}).${hint}`,
    };
  }
  if (error instanceof RateLimitedError) {
    return {
      title: "Rate limited",
      message: `${doing} hit the rate limit${error.resetAt ? ` (resets at ${error.resetAt.toISOString()})` : ""}. Re-run the job later.`,
    };
  }
  if (error instanceof RequestValidationError) {
    return { title: "Invalid request", message: `${doing}: ${error.issues.map((i) => `${i.field}: ${i.message}`).join("; ")}` };
  }
  if (error instanceof ShiplogError) return { title: "Request failed", message: `${doing} failed (${error.code}): ${error.message}` };
  return { title: "Unexpected error", message: `${doing} failed: ${error instanceof Error ? error.message : String(error)}` };
}

/** The `{cause, repositories}` of a 404 that names repositories which do not exist (the records' github_repository). */
export function missingRepositories(error: NotFoundError): { cause: string; repositories: unknown[] } | undefined {
  const body = error.body as { message?: { cause?: string; repositories?: unknown[] } } | undefined;
  if (typeof body?.message !== "object" || body.message === null) return undefined;
  return { cause: body.message.cause ?? "not found", repositories: body.message.repositories ?? [] };
}
