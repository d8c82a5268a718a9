import { EmulatorUsageError } from "./emulator-usage-error.js";
import type { Emulator } from "./server.js";

/** The digests the seeded world has records of: sha256 of "web image" and of "foo" (the READMEs' examples). */
export const SEEDED_DIGESTS = {
  /** ghcr.io/acme/web 1.4.0: the CLI README's examples. */
  web: "sha256:791d3521612d2347a5ba27929640ac508ab934d8662254e555bd277ca83f3f27",
  /** ghcr.io/acme/api 2.0.0: the root README's examples. */
  api: "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae",
} as const;

/** When the seeded records were written (fixed, so their timestamps print as the READMEs show them). */
export const SEEDED_RECORDS_AT = "2026-11-25T01:26:56Z";

/** When the seeded source import was started: before the import endpoints' retirement (2024-04-12). */
export const SEEDED_IMPORT_AT = "2024-03-01T12:00:00Z";

/** What `seedDemoWorld` put in the emulator, to print or check. */
export interface SeedSummary {
  deploymentRecords: number;
  storageRecords: number;
  digests: string[];
  notificationThreads: number;
  events: number;
}

/**
 * Fills a freshly started emulator with the default fixture with the world the READMEs' examples read (the
 * standalone `shiplog-emulator` does this unless `--no-seed`; code calls it after `startEmulator()`):
 * - records of `SEEDED_DIGESTS.web` and `.api` in acme: one storage record each (ghcr.io) and one deployment record
 *   each (cluster prod-eu-1, production, eu-west-1, `team=shop`), written at `SEEDED_RECORDS_AT`;
 * - the lightweight tag `refs/tags/v1` on acme/web's first commit (`tag create ... --derived-tags` moves it);
 * - activity on acme/web (a push, a star, a branch), and an issue "Checkout is slow" in which hubot mentions octo:
 *   octo's (the `classic` token's) inbox holds thread 2 unread (thread 1 is hubot's own, read);
 * - a source import of acme/api from `https://svn.example.com/svn/myproject`, started at `SEEDED_IMPORT_AT`: the
 *   import endpoints answer only on an emulator clock before 2024-04-12 (admin `POST /clock`).
 * The clock is back to real time when it returns. Throws EmulatorUsageError when the fixture lacks acme/web or acme/api.
 */
export function seedDemoWorld(emulator: Emulator): SeedSummary {
  const { state, clock, activity } = emulator;
  const web = state.git.repository("acme", "web");
  const api = emulator.fixture.orgs.find((o) => o.login === "acme")?.repositories.find((r) => r.name === "api");
  if (!web || web.empty || !api) {
    throw new EmulatorUsageError("seedDemoWorld", {
      argument: "fixture",
      message: "has no acme/web with commits and acme/api: the seeded world is the default fixture's",
      rule: "seed-needs-default-fixture",
    });
  }

  clock.set(SEEDED_RECORDS_AT, { freeze: true });
  const artifacts = [
    { digest: SEEDED_DIGESTS.web, name: "ghcr.io/acme/web", version: "1.4.0", repository: "web", deployment: "shop/web" },
    { digest: SEEDED_DIGESTS.api, name: "ghcr.io/acme/api", version: "2.0.0", repository: "api", deployment: "shop/api" },
  ];
  for (const artifact of artifacts) {
    state.artifacts.upsertStorage({
      org: "acme",
      repository: artifact.repository,
      name: artifact.name,
      version: artifact.version,
      digest: artifact.digest,
      artifact_url: undefined,
      path: undefined,
      registry_url: "https://ghcr.io",
      registry_repository: `acme/${artifact.repository}`,
      status: "active",
    });
  }
  for (const artifact of artifacts) {
    state.artifacts.upsertDeployment({
      org: "acme",
      cluster: "prod-eu-1",
      logical_environment: "production",
      physical_environment: "eu-west-1",
      deployment_name: artifact.deployment,
      name: artifact.name,
      version: artifact.version,
      digest: artifact.digest,
      status: "deployed",
      tags: { team: "shop" },
      runtime_risks: undefined,
      repository: artifact.repository,
      attestation_id: null,
    });
  }

  clock.set(SEEDED_IMPORT_AT, { freeze: true });
  state.imports.start(
    { owner: "acme", repo: "api", repositoryId: api.id, baseUrl: emulator.url },
    { vcs_url: "https://svn.example.com/svn/myproject" },
  );
  clock.reset();

  web.createRef("refs/tags/v1", web.commits()[0]!.sha);
  const before = state.events.feed(() => true).length;
  activity.push({ actor: "octo", repo: "acme/web", commits: 2 });
  activity.star({ actor: "hubot", repo: "acme/web" });
  activity.createBranch({ actor: "octo", repo: "acme/web", ref: "feature/checkout" });
  const issue = activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Checkout is slow" });
  activity.mention({ actor: "hubot", repo: "acme/web", issue: issue.number, user: "octo" });

  return {
    deploymentRecords: artifacts.length,
    storageRecords: artifacts.length,
    digests: artifacts.map((a) => a.digest),
    notificationThreads: 1,
    events: state.events.feed(() => true).length - before,
  };
}
