import { z } from "zod";
import { TOKEN_KINDS, type TokenKind } from "@shiplog/client/permissions";

/** Access levels a fine-grained grant gives for one permission. */
export const accessLevel = z.enum(["read", "write", "admin"]);
export type AccessLevel = z.infer<typeof accessLevel>;

/** The token types of 5.1, as the client names them (`TOKEN_KINDS`). */
export const tokenType = z.enum(TOKEN_KINDS as readonly TokenKind[] as [TokenKind, ...TokenKind[]]);
export type TokenType = TokenKind;

/** A commit of a fixture repository: the files it changes (path → content) on top of its parent's. */
const commitFixture = z.object({
  message: z.string(),
  files: z.record(z.string(), z.string()).default({}),
  /** Default: Octo Cat. */
  author: z.object({ name: z.string(), email: z.string() }).optional(),
  /** ISO 8601; default: an hour after the previous fixture commit. */
  date: z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp such as 2024-01-31T12:00:00Z" }).optional(),
});

/** A repository's git history; non-empty repositories without one get a single "Initial commit". */
const gitFixture = z.object({
  default_branch: z.string().default("main"),
  commits: z.array(commitFixture).default([]),
});

const repositoryFixture = z.object({
  name: z.string(),
  id: z.number().int(),
  private: z.boolean().default(false),
  /** A repository with no commits: git reads and writes answer 409. */
  empty: z.boolean().default(false),
  /** Source imports refuse a target with Actions enabled (422). */
  actions_enabled: z.boolean().default(false),
  /** Commits on the default branch (ignored for empty repositories). */
  git: gitFixture.optional(),
  /** Users who watch the repository: they get `subscribed` notifications of its threads and its events as received events. */
  watchers: z.array(z.string()).default([]),
  /** Earlier names: `/networks/{owner}/{old}/events` answers 301 to the current name. */
  former_names: z.array(z.string()).default([]),
});

const orgFixture = z.object({
  login: z.string(),
  id: z.number().int(),
  members: z.array(z.string()).default([]),
  repositories: z.array(repositoryFixture).default([]),
});

const grantFixture = z.object({
  org: z.string(),
  /** `all`, or the names of the selected repositories. */
  repositories: z.union([z.literal("all"), z.array(z.string())]).default("all"),
  permissions: z.record(z.string(), accessLevel).default({}),
});

const tokenFixture = z.object({
  /** A name tests use to pick the token (`emulator.tokens.admin`). */
  name: z.string(),
  token: z.string().min(8),
  type: tokenType,
  /** The user the token acts for (absent for installation tokens). */
  user: z.string().optional(),
  /** Classic tokens: OAuth scopes. */
  scopes: z.array(z.string()).default([]),
  /** Fine-grained and app tokens: what they are granted, per organization. */
  grants: z.array(grantFixture).default([]),
});

const userFixture = z.object({ login: z.string(), id: z.number().int(), type: z.enum(["User", "Bot"]).default("User") });

/** A provenance attestation links an artifact digest to a repository (it overrides `github_repository`). */
const attestationFixture = z.object({
  org: z.string(),
  repository: z.string(),
  digest: z.string(),
  id: z.number().int(),
});

/** An App: it signs JWTs with its private key (made by the emulator on first use unless `public_key` is given). */
const appFixture = z.object({
  id: z.number().int().positive(),
  client_id: z.string(),
  slug: z.string(),
  name: z.string(),
  /** The organization that owns the App. */
  owner: z.string(),
  description: z.string().default(""),
  /** PEM public key, when a test brings its own key pair. */
  public_key: z.string().optional(),
  permissions: z.record(z.string(), accessLevel).default({}),
  events: z.array(z.string()).default([]),
});

/** An App installed on an organization, with what it was granted. */
const installationFixture = z.object({
  id: z.number().int().positive(),
  app_id: z.number().int().positive(),
  /** The organization it is installed on. */
  account: z.string(),
  repositories: z.union([z.literal("all"), z.array(z.string())]).default("all"),
  permissions: z.record(z.string(), accessLevel).default({}),
});

/**
 * Everything the emulator starts with, checked strictly: an unknown top-level key (a typo gives an empty world),
 * a token value or name used twice, a token with whitespace (it could never be sent in a header), and a grant
 * or attestation for an organization the fixture lacks are refused, each named by its path.
 */
export const fixtureSchema = z
  .strictObject({
    apps: z.array(appFixture).default([]),
    installations: z.array(installationFixture).default([]),
    users: z.array(userFixture).default([]),
    orgs: z.array(orgFixture).default([]),
    tokens: z.array(tokenFixture).default([]),
    attestations: z.array(attestationFixture).default([]),
  })
  .superRefine((fixture, ctx) => {
    const orgs = new Set(fixture.orgs.map((o) => o.login.toLowerCase()));
    const issue = (path: (string | number)[], message: string, rule: string) =>
      ctx.addIssue({ code: "custom", path, message, params: { rule } });
    const firstIndex = new Map<string, number>();
    fixture.tokens.forEach((token, i) => {
      if (/\s/.test(token.token)) issue(["tokens", i, "token"], "must not contain whitespace", "no whitespace");
      for (const key of ["token", "name"] as const) {
        const seen = firstIndex.get(`${key}:${token[key]}`);
        if (seen === undefined) firstIndex.set(`${key}:${token[key]}`, i);
        else issue(["tokens", i, key], `repeats tokens[${seen}].${key}`, "unique");
      }
      token.grants.forEach((grant, g) => {
        if (!orgs.has(grant.org.toLowerCase()))
          issue(["tokens", i, "grants", g, "org"], "names no organization of the fixture", "an organization of the fixture");
      });
    });
    fixture.attestations.forEach((a, i) => {
      if (!orgs.has(a.org.toLowerCase()))
        issue(["attestations", i, "org"], "names no organization of the fixture", "an organization of the fixture");
    });
  });
export type Fixture = z.infer<typeof fixtureSchema>;
export type FixtureInput = z.input<typeof fixtureSchema>;
export type TokenFixture = Fixture["tokens"][number];
export type RepositoryFixture = z.infer<typeof repositoryFixture>;

const ALL_REPOSITORY_PERMISSIONS = {
  artifact_metadata: "write",
  contents: "write",
  metadata: "read",
  issues: "write",
  pull_requests: "write",
} as const;

/**
 * The default world: organization `acme` with three repositories, one token of every type,
 * and a few narrower tokens for permission tests. Token strings are fake and documented.
 */
export const defaultFixture: FixtureInput = {
  apps: [
    {
      id: 1_001_001,
      client_id: "Iv23emuShiplogApp0001",
      slug: "shiplog-app",
      name: "shiplog-app",
      owner: "acme",
      description: "Tracks where artifacts are stored and running",
      permissions: { artifact_metadata: "write", metadata: "read", contents: "read" },
    },
  ],
  installations: [
    {
      id: 3001,
      app_id: 1_001_001,
      account: "acme",
      repositories: "all",
      permissions: { artifact_metadata: "write", metadata: "read", contents: "read" },
    },
    {
      id: 3002,
      app_id: 1_001_001,
      account: "globex",
      repositories: ["portal"],
      permissions: { artifact_metadata: "write", metadata: "read" },
    },
  ],
  users: [
    { login: "octo", id: 1001 },
    { login: "hubot", id: 1002 },
    { login: "shiplog-app[bot]", id: 1003, type: "Bot" },
  ],
  orgs: [
    {
      login: "acme",
      id: 5001,
      members: ["octo", "hubot"],
      repositories: [
        {
          name: "web",
          id: 7001,
          private: false,
          watchers: ["octo", "hubot"],
          former_names: ["website"],
          git: {
            commits: [
              { message: "Initial commit", files: { "README.md": "# web\n", "package.json": '{ "name": "web", "version": "0.1.0" }\n' } },
              { message: "Add the landing page", files: { "src/index.html": "<h1>acme</h1>\n" } },
              { message: "Release 1.0.0\n\nFirst public release.", files: { "package.json": '{ "name": "web", "version": "1.0.0" }\n' } },
            ],
          },
        },
        {
          name: "api",
          id: 7002,
          private: true,
          watchers: ["octo"],
          git: {
            commits: [
              { message: "Initial commit", files: { "README.md": "# api\n", "go.mod": "module acme.example/api\n\ngo 1.24\n" } },
              { message: "Serve /healthz", files: { "cmd/api/main.go": "package main\n\nfunc main() {}\n" } },
              { message: "Add the orders endpoint", files: { "internal/orders/orders.go": "package orders\n" } },
            ],
          },
        },
        { name: "infra", id: 7003, private: true, actions_enabled: true },
        { name: "empty", id: 7004, private: true, empty: true },
      ],
    },
    { login: "globex", id: 5002, members: ["hubot"], repositories: [{ name: "portal", id: 7101, private: true }] },
  ],
  tokens: [
    {
      name: "admin",
      token: "emu_fg_admin_0000000000000000",
      type: "fine_grained",
      user: "octo",
      grants: [{ org: "acme", repositories: "all", permissions: { ...ALL_REPOSITORY_PERMISSIONS, organization_events: "read" } }],
    },
    {
      name: "installation",
      token: "emu_iat_acme_00000000000000000",
      type: "app_installation",
      grants: [{ org: "acme", repositories: "all", permissions: { ...ALL_REPOSITORY_PERMISSIONS, organization_events: "read" } }],
    },
    {
      name: "appUser",
      token: "emu_uat_octo_00000000000000000",
      type: "app_user",
      user: "octo",
      grants: [{ org: "acme", repositories: "all", permissions: { ...ALL_REPOSITORY_PERMISSIONS, organization_events: "read" } }],
    },
    { name: "classic", token: "emu_classic_octo_0000000000000", type: "classic", user: "octo", scopes: ["repo", "notifications"] },
    { name: "classicHubot", token: "emu_classic_hubot_000000000000", type: "classic", user: "hubot", scopes: ["notifications"] },
    {
      name: "readOnly",
      token: "emu_fg_readonly_00000000000000",
      type: "fine_grained",
      user: "hubot",
      grants: [
        {
          org: "acme",
          repositories: "all",
          permissions: { artifact_metadata: "read", contents: "read", metadata: "read", issues: "read" },
        },
      ],
    },
    {
      name: "webOnly",
      token: "emu_fg_webonly_000000000000000",
      type: "fine_grained",
      user: "hubot",
      grants: [{ org: "acme", repositories: ["web"], permissions: { artifact_metadata: "write", contents: "write", metadata: "read" } }],
    },
    { name: "noGrants", token: "emu_fg_nogrants_00000000000000", type: "fine_grained", user: "hubot", grants: [] },
  ],
  attestations: [],
};
