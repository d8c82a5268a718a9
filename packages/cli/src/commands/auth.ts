// `shiplog auth status`: who the credentials are, the token's type, what the permission matrix says it can do with
// each command, and its rate limit, as `gh auth status` answers.
import { Command } from "commander";
import { NotFoundError, type ShiplogClient } from "@shiplog/client";
import {
  TOKEN_KIND_TITLES,
  checkTokenGrants,
  describeRequirements,
  requiredPermissions,
  type DeclaredToken,
  type PermissionResolution,
  type TokenKind,
} from "@shiplog/client/permissions";
import { AuthenticationError } from "@shiplog/client";
import { orgScope } from "../connection.js";
import { EXIT } from "../exit-codes.js";
import { renderTable } from "../output.js";
import { withExamples, type CommandContext } from "../program.js";

const DIGEST = `sha256:${"0".repeat(64)}`;

/** What each command calls, with placeholder names (ORG, OWNER/REPO): the matrix answers by route. */
const CALLS: readonly { command: string; method: string; path: string }[] = [
  { command: "records deployments", method: "GET", path: `/orgs/ORG/artifacts/${DIGEST}/metadata/deployment-records` },
  { command: "records storage", method: "GET", path: `/orgs/ORG/artifacts/${DIGEST}/metadata/storage-records` },
  { command: "records create-storage", method: "POST", path: "/orgs/ORG/artifacts/metadata/storage-record" },
  { command: "records create-deployment", method: "POST", path: "/orgs/ORG/artifacts/metadata/deployment-record" },
  { command: "records set-cluster", method: "POST", path: "/orgs/ORG/artifacts/metadata/deployment-record/cluster/CLUSTER" },
  { command: "tag create", method: "POST", path: "/repos/OWNER/REPO/git/tags" },
  { command: "tag list", method: "GET", path: "/repos/OWNER/REPO/git/matching-refs/tags/" },
  { command: "tag delete", method: "DELETE", path: "/repos/OWNER/REPO/git/refs/tags/TAG" },
  { command: "events list|tail org:ORG", method: "GET", path: "/orgs/ORG/events" },
  { command: "notifications", method: "GET", path: "/notifications" },
  { command: "import status|follow", method: "GET", path: "/repos/OWNER/REPO/import" },
];

/** A token's type from its prefix, as the service issues them; undefined when the prefix does not tell. */
function typeFromPrefix(token: string): TokenKind | undefined {
  if (token.startsWith("ghp_")) return "classic";
  if (token.startsWith("github_pat_")) return "fine_grained";
  if (token.startsWith("ghs_")) return "app_installation";
  if (token.startsWith("ghu_")) return "app_user";
  return undefined;
}

interface RateLimit {
  limit: number;
  used: number;
  remaining: number;
  reset: number;
}

/** The core limit from `GET /rate_limit` (free: it does not count), else from the answer's X-RateLimit headers. */
function rateLimitOf(body: unknown, headers: Headers): RateLimit | undefined {
  const core = (body as { resources?: { core?: RateLimit } } | undefined)?.resources?.core;
  if (core && typeof core.limit === "number") return core;
  const n = (name: string) => Number(headers.get(`x-ratelimit-${name}`));
  return headers.has("x-ratelimit-limit")
    ? { limit: n("limit"), used: n("used"), remaining: n("remaining"), reset: n("reset") }
    : undefined;
}

/** The login a token acts for, from `GET /user`; undefined when the service does not say (an installation token, or no such route). */
async function login(client: ShiplogClient, signal: AbortSignal): Promise<string | undefined> {
  try {
    const answer = await client.request<{ login?: string }>({ method: "GET", route: "/user", signal });
    return answer.data.login;
  } catch (error) {
    if (error instanceof AuthenticationError) throw error;
    return undefined;
  }
}

/** What this token can do with a command, as the matrix tells from its type (and a classic token's scopes). */
function verdict(resolution: PermissionResolution, declared: DeclaredToken | undefined, notClassic: boolean): string {
  if (!declared) {
    if (!notClassic) return "depends on the token's type";
    // Not classic, type unknown: what a fine-grained, App user or installation token may do.
    if (!resolution.tokenKinds.some((k) => k !== "classic")) return "no: only a classic token is accepted";
    return resolution.requirements.length === 0 ? "yes" : "if granted";
  }
  const check = checkTokenGrants(resolution, declared);
  if (!check.ok) {
    const missing = check.missing[0];
    if (missing?.kind === "token_type") return "no: token type refused";
    if (missing?.kind === "scope") return `no: needs scope ${missing.anyOf.join(" or ")}`;
    return "no: permission missing";
  }
  if (declared.type === "classic") return "yes";
  return resolution.requirements.length === 0 ? "yes" : "if granted";
}

export function authCommand(ctx: CommandContext): Command {
  const auth = withExamples(new Command("auth").description("the credentials: who they are and what they may do"), "shiplog auth status");
  auth.addCommand(
    withExamples(
      new Command("status")
        .description("who the token is, its type, what each command needs and whether the token can do it, and its rate limit")
        .option("--org <org>", "with App credentials: the organization whose installation to use (default: SHIPLOG_ORG)")
        .action(async (_options, command: Command) => {
          const org = ctx.options<{ org?: string }>(command).org ?? ctx.env.SHIPLOG_ORG;
          const client = ctx.client(command, org ? orgScope(org) : {});
          const kind = ctx.connection?.credentials ?? "none";
          const answer = await client
            .request<unknown>({ method: "GET", route: "/rate_limit", signal: ctx.signal })
            .catch((error: unknown) => {
              // A service without /rate_limit still answered with the limit headers of its 404.
              if (error instanceof NotFoundError) return undefined;
              throw error;
            });
          const headers = answer?.headers ?? new Headers();
          const scopesHeader = headers.get("x-oauth-scopes");
          const token = kind === "token" ? (ctx.env.SHIPLOG_TOKEN ?? "") : "";
          const type: TokenKind | undefined =
            kind === "app" ? "app_installation" : scopesHeader !== null ? "classic" : kind === "token" ? typeFromPrefix(token) : undefined;
          const scopes =
            scopesHeader === null
              ? undefined
              : scopesHeader
                  .split(",")
                  .map((s) => s.trim())
                  .filter(Boolean);
          const declared: DeclaredToken | undefined = type && { type, ...(scopes && { scopes }) };
          // Only a token may act for a user: an App's installation token is refused GET /user (403), and without
          // credentials it is 401.
          const who = kind === "token" ? await login(client, ctx.signal) : undefined;
          const rate = rateLimitOf(answer?.data, headers);
          const commands = CALLS.map((call) => {
            const resolution = requiredPermissions(call.method, call.path) as PermissionResolution;
            return {
              command: call.command,
              call: `${call.method} ${resolution.template}`,
              needs: resolution.requirements.length > 0 ? describeRequirements(resolution) : "no permission",
              classic_scopes: resolution.classicScopes,
              token_types: resolution.tokenKinds,
              this_token: verdict(resolution, declared, kind !== "none" && scopesHeader === null),
            };
          });
          const status = {
            api_url: (command.optsWithGlobals<{ apiUrl?: string }>().apiUrl ?? ctx.env.SHIPLOG_API_URL ?? "https://api.github.com").replace(
              /\/+$/,
              "",
            ),
            credentials: kind,
            user: who ?? null,
            token_type: type ?? null,
            scopes: scopes ?? null,
            rate_limit: rate ? { ...rate, reset_at: new Date(rate.reset * 1000).toISOString().replace(/\.\d+Z$/, "Z") } : null,
            commands,
          };
          if (await ctx.printData(command, { data: status, items: undefined })) return;
          const typeText = type
            ? TOKEN_KIND_TITLES[type]
            : kind === "none"
              ? "none: anonymous (set SHIPLOG_TOKEN or --token-file, or an App's --app-id and --app-private-key-file)"
              : "not classic (no X-OAuth-Scopes); fine-grained, App user or installation: the token does not say which";
          const lines = [
            ["service", status.api_url],
            ["credentials", kind === "app" ? "an App's installation token" : kind === "token" ? "a token" : "none"],
            [
              "user",
              who ??
                (kind === "app"
                  ? `the App's installation${org ? ` on ${org}` : ""}`
                  : kind === "none"
                    ? "none"
                    : "not known (the service did not answer GET /user)"),
            ],
            ["token type", typeText],
            ...(scopes ? [["scopes", scopes.join(", ") || "none"]] : []),
            ["rate limit", rate ? `${rate.remaining} of ${rate.limit} left, resets ${status.rate_limit!.reset_at}` : "not known"],
          ];
          ctx.io.stdout(renderTable(["", ""], lines, { heading: false }));
          ctx.io.stdout(`\nWhat each command needs (the permission matrix), and this token:\n`);
          ctx.io.stdout(
            renderTable(
              ["command", "needs", "classic scopes", "this token"],
              commands.map((c) => [
                c.command,
                c.needs,
                c.classic_scopes?.join(" or ") ?? (c.token_types.includes("classic") ? "none named" : "refused"),
                c.this_token,
              ]),
              { width: ctx.io.columns ?? 120 },
            ),
          );
          if (kind === "none") ctx.exitCode = EXIT.auth;
        }),
      "shiplog auth status",
      "shiplog auth status --json token_type,rate_limit",
    ),
  );
  return auth;
}
