import type { AccessLevel } from "./fixture.js";

/** Why an artifact's repository could not be settled for a write (the causes of a refused or 207 answer). */
export type RepositoryFailure = "repository_not_found" | "unauthorized" | "no_attestation";

/** The repository a record is written for, and the attestation that named it, if any. */
export interface ResolvedRepository {
  repository: string;
  repositoryId: number;
  attestationId: number | null;
}

export type RepositoryResolution =
  | { ok: true; value: ResolvedRepository }
  /** `repository`: the name that was not found, or the id of the repository the caller may not write to. */
  | { ok: false; failure: RepositoryFailure; repository?: string | number };

/** One write's artifact: the organization, the digest, what the request names, what earlier records linked. */
export interface ArtifactWriteRequest {
  org: string;
  digest: string;
  /** The request's `github_repository`, if any. */
  githubRepository: string | undefined;
  /** Repositories of the organization already linked to the digest by earlier records. */
  linkedRepositories: readonly string[];
}

/** What the resolution reads about the organization and the caller, as plain data. */
export interface ArtifactRepositoryFacts {
  /** Provenance attestations (those of other organizations are ignored). */
  attestations: readonly { org: string; repository: string; digest: string; id: number }[];
  /** The organization's repositories with the caller's Artifact metadata level on each (undefined: none). */
  repositories: readonly { name: string; id: number; artifactMetadata: AccessLevel | undefined }[];
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * Finds the repository an artifact write is for (spec 4.1): a provenance attestation wins over `github_repository`,
 * which wins over the one repository earlier records linked to the digest; then the caller needs Artifact metadata
 * write (or admin) on it. Names compare case-insensitively; the answer carries the repository's own spelling.
 */
export function resolveArtifactRepository(request: ArtifactWriteRequest, facts: ArtifactRepositoryFacts): RepositoryResolution {
  const attestation = facts.attestations.find((a) => same(a.org, request.org) && a.digest === request.digest);
  let name = attestation?.repository ?? request.githubRepository;
  // An earlier link decides only when it is unambiguous.
  if (name === undefined && request.linkedRepositories.length === 1) name = request.linkedRepositories[0];
  if (name === undefined) return { ok: false, failure: "no_attestation" };
  const repo = facts.repositories.find((r) => same(r.name, name));
  if (!repo) return { ok: false, failure: "repository_not_found", repository: name };
  if (repo.artifactMetadata !== "write" && repo.artifactMetadata !== "admin")
    return { ok: false, failure: "unauthorized", repository: repo.id };
  return { ok: true, value: { repository: repo.name, repositoryId: repo.id, attestationId: attestation?.id ?? null } };
}
