// Which repository of the organization a record names (`github_repository`), so that the service can link an image
// no provenance attestation links. Pure: rules and plain data in, a repository (and the rule that named it) out.
// The rules, first match wins:
//   1. the workload's (or pod's) annotation shiplog.dev/repository[.<container>] (mapping/annotations.ts reads it);
//   2. the namespace's label or annotation shiplog.dev/repository (the annotation wins over the label);
//   3. the cluster-wide mapping from image name prefixes to repositories (--image-repositories), longest prefix first;
//   4. an image of the service's own container registry (--registry-host): <host>/<owner>/<repository>[/...] names
//      <repository> when <owner> is the organization.
// A record none of them links is sent without one: the service still links it by a provenance attestation, or
// refuses it (not_found), which the controller reports once per workload with these rules (mapping/unlinked-records.ts).
import { isRepositoryName, REPOSITORY_ANNOTATION } from "./annotations.js";
import { parseImageNamePrefix } from "@shiplog/client/internal";
import type { Parsed } from "./image-reference.js";

/** The namespace label and annotation naming the repository of its workloads (the workload annotation's key). */
export const NAMESPACE_REPOSITORY_KEY = REPOSITORY_ANNOTATION;

/** The service's container registry, by default (the spec names none; the service's own is ghcr.io). */
export const DEFAULT_REGISTRY_HOST = "ghcr.io";

/** One pair of the mapping: images whose name is `prefix` or starts with `prefix/` belong to `repository`. */
export interface ImageRepositoryRule {
  /** A fully qualified image name or a leading part of one at a `/`, e.g. `registry.example.com/team-a`. */
  prefix: string;
  repository: string;
}

/** The cluster-wide rules (from the configuration). */
export interface RepositoryRules {
  /** The organization: a registry image of another owner names no repository of it. */
  org: string;
  /** The mapping, in any order (the longest matching prefix wins). */
  imageRepositories: readonly ImageRepositoryRule[];
  /** The service's container registry host; "" turns rule 4 off. */
  registryHost: string;
}

/** Which rule named the repository. */
export type RepositorySource = "annotation" | "namespace" | "image-mapping" | "registry";

/** What one record's rules are applied to. */
export interface RepositoryQuery {
  /** The repository the workload's annotations name; null when they name none on purpose (an empty per-container annotation). */
  annotation?: string | null;
  /** The repository the namespace's label or annotation names. */
  namespace?: string;
  /** The image's fully qualified name, e.g. `ghcr.io/acme/web`, `docker.io/library/nginx`. */
  image: string;
}

/** Applies the rules in order; undefined when none names a repository. */
export function resolveRepository(
  query: RepositoryQuery,
  rules: RepositoryRules,
): { repository: string; source: RepositorySource } | undefined {
  if (query.annotation === null) return undefined;
  if (query.annotation !== undefined) return { repository: query.annotation, source: "annotation" };
  if (query.namespace !== undefined) return { repository: query.namespace, source: "namespace" };
  const mapped = mappedRepository(query.image, rules.imageRepositories);
  if (mapped !== undefined) return { repository: mapped, source: "image-mapping" };
  const owned = registryRepository(query.image, rules.registryHost, rules.org);
  if (owned !== undefined) return { repository: owned, source: "registry" };
  return undefined;
}

/** The repository of the longest mapping prefix the image name matches (at a `/` boundary). */
export function mappedRepository(image: string, mapping: readonly ImageRepositoryRule[]): string | undefined {
  let best: ImageRepositoryRule | undefined;
  for (const rule of mapping) {
    const matches = image === rule.prefix || image.startsWith(`${rule.prefix}/`);
    if (matches && (best === undefined || rule.prefix.length > best.prefix.length)) best = rule;
  }
  return best?.repository;
}

/** Rule 4: `<host>/<owner>/<repository>[/...]` names `<repository>` when `<owner>` is the organization. */
export function registryRepository(image: string, registryHost: string, org: string): string | undefined {
  if (registryHost === "") return undefined;
  const [host, owner, repository] = image.split("/");
  if (host?.toLowerCase() !== registryHost.toLowerCase() || owner === undefined || repository === undefined) return undefined;
  if (owner.toLowerCase() !== org.toLowerCase() || !isRepositoryName(repository)) return undefined;
  return repository;
}

/** The repository a namespace's metadata names (annotation, then label), if it is a valid name. */
export function namespaceRepository(metadata: {
  labels?: Readonly<Record<string, string>> | undefined;
  annotations?: Readonly<Record<string, string>> | undefined;
}): string | undefined {
  for (const value of [metadata.annotations?.[NAMESPACE_REPOSITORY_KEY], metadata.labels?.[NAMESPACE_REPOSITORY_KEY]]) {
    if (value !== undefined && isRepositoryName(value)) return value;
  }
  return undefined;
}

/**
 * Parses the mapping setting: comma-separated `<image name prefix>=<repository>` pairs. A prefix is normalised as an
 * image name is (`nginx` is `docker.io/library/nginx`); a trailing `/` is dropped (@shiplog/client's
 * parseImageNamePrefix, whose grammar the chart's schema checks too).
 */
export function parseImageRepositories(text: string): Parsed<ImageRepositoryRule[]> {
  const rules: ImageRepositoryRule[] = [];
  for (const item of text.split(",")) {
    const pair = item.trim();
    if (pair === "") continue;
    const eq = pair.lastIndexOf("=");
    if (eq <= 0) return { ok: false, reason: `"${pair}" is not <image name prefix>=<repository>` };
    // A registry host alone (`registry.example.com`, `localhost:5000`) maps every image of that registry.
    const parsed = parseImageNamePrefix(pair.slice(0, eq));
    if (!parsed.ok) return parsed;
    const repository = pair.slice(eq + 1).trim();
    if (!isRepositoryName(repository)) {
      return { ok: false, reason: `repository "${repository}" must be 1 to 100 characters of letters, digits, '.', '-' or '_'` };
    }
    const prefix = parsed.value;
    if (rules.some((r) => r.prefix === prefix)) return { ok: false, reason: `prefix "${prefix}" is mapped twice` };
    rules.push({ prefix, repository });
  }
  return { ok: true, value: rules };
}

/** Whether the service's refusal of an entry means no rule linked it: not_found, and the entry names no repository. */
export function refusedUnlinked(entry: { github_repository?: string; status?: string }, cause: string): boolean {
  return cause === "not_found" && entry.github_repository === undefined && (entry.status ?? "deployed") === "deployed";
}

/** What an operator does about a record no rule links, in one line naming the workload, the image and the fix. */
export function unlinkedFix(workload: { kind: string; namespace: string; name: string }, image: string, rules: RepositoryRules): string {
  const registry =
    rules.registryHost === ""
      ? ""
      : `, or publish the image as ${rules.registryHost}/${rules.org.toLowerCase()}/<repository> (--registry-host / SHIPLOG_REGISTRY_HOST)`;
  return (
    `${workload.kind} ${workload.namespace}/${workload.name} runs ${image}, which no provenance attestation or rule links to a ` +
    `repository of ${rules.org}: annotate the workload (${REPOSITORY_ANNOTATION}: <repository>) or its namespace ` +
    `${workload.namespace} (label or annotation ${NAMESPACE_REPOSITORY_KEY}), or map the image ` +
    `(--image-repositories / SHIPLOG_IMAGE_REPOSITORIES, chart config.imageRepositories: ${image}=<repository>)${registry}`
  );
}
