import { describe, expect, it } from "vitest";
import { resolveArtifactRepository, type ArtifactRepositoryFacts } from "@shiplog/emulator/internal";

// Which repository an artifact write is for (spec 4.1), as plain data: attestation, then github_repository,
// then an unambiguous earlier link; then Artifact metadata write on it.
const digest = `sha256:${"1".repeat(64)}`;
const other = `sha256:${"2".repeat(64)}`;
const facts: ArtifactRepositoryFacts = {
  attestations: [
    { org: "acme", repository: "api", digest, id: 77 },
    { org: "globex", repository: "portal", digest: other, id: 78 },
  ],
  repositories: [
    { name: "web", id: 1, artifactMetadata: "write" },
    { name: "api", id: 2, artifactMetadata: "admin" },
    { name: "docs", id: 3, artifactMetadata: "read" },
    { name: "infra", id: 4, artifactMetadata: undefined },
  ],
};
const write = (over: { digest?: string; githubRepository?: string; linkedRepositories?: string[] }) => ({
  org: "acme",
  digest: over.digest ?? other,
  githubRepository: over.githubRepository,
  linkedRepositories: over.linkedRepositories ?? [],
});

describe("resolveArtifactRepository", () => {
  it("an attestation of the organization wins over github_repository", () => {
    expect(resolveArtifactRepository(write({ digest, githubRepository: "web" }), facts)).toEqual({
      ok: true,
      value: { repository: "api", repositoryId: 2, attestationId: 77 },
    });
  });

  it("another organization's attestation is ignored", () => {
    expect(resolveArtifactRepository(write({ githubRepository: "web" }), facts)).toEqual({
      ok: true,
      value: { repository: "web", repositoryId: 1, attestationId: null },
    });
  });

  it("github_repository names the repository, case-insensitively, answered in its own spelling", () => {
    expect(resolveArtifactRepository(write({ githubRepository: "WEB" }), facts)).toMatchObject({ ok: true, value: { repository: "web" } });
  });

  it("without either, one earlier link decides; none or several leave it open", () => {
    expect(resolveArtifactRepository(write({ linkedRepositories: ["web"] }), facts)).toMatchObject({
      ok: true,
      value: { repository: "web" },
    });
    expect(resolveArtifactRepository(write({}), facts)).toEqual({ ok: false, failure: "no_attestation" });
    expect(resolveArtifactRepository(write({ linkedRepositories: ["web", "api"] }), facts)).toEqual({
      ok: false,
      failure: "no_attestation",
    });
    // github_repository wins over a link.
    expect(resolveArtifactRepository(write({ githubRepository: "api", linkedRepositories: ["web"] }), facts)).toMatchObject({
      ok: true,
      value: { repository: "api" },
    });
  });

  it("a repository the organization does not have is not found, by the name given", () => {
    expect(resolveArtifactRepository(write({ githubRepository: "nope" }), facts)).toEqual({
      ok: false,
      failure: "repository_not_found",
      repository: "nope",
    });
  });

  it("write needs Artifact metadata write or admin on the repository; refused by the repository's id", () => {
    expect(resolveArtifactRepository(write({ githubRepository: "docs" }), facts)).toEqual({
      ok: false,
      failure: "unauthorized",
      repository: 3,
    });
    expect(resolveArtifactRepository(write({ githubRepository: "infra" }), facts)).toEqual({
      ok: false,
      failure: "unauthorized",
      repository: 4,
    });
    expect(resolveArtifactRepository(write({ githubRepository: "api" }), facts)).toMatchObject({ ok: true });
  });
});
