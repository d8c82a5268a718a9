// The App endpoints an App calls with its JWT: who it is, where it is installed, and installation tokens.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppRegistry, FixtureApp, FixtureInstallation } from "../app-registry.js";
import type { EmulatorContext } from "../emulator-context.js";
import type { AccessLevel } from "../fixture.js";
import { baseUrlOf, webBase } from "../base-url.js";
import { httpDate, nodeId, userView } from "../resource-views.js";
import { sendError } from "../service-errors.js";
import { serve } from "./route-table.js";

const JWT_DOCS = "/apps/creating-apps/authenticating-with-an-app/generating-a-json-web-token-jwt-for-an-app";
const CREATED_AT_MS = Date.UTC(2025, 0, 15);
const LEVELS: Record<AccessLevel, number> = { read: 1, write: 2, admin: 3 };

/** GET /app, the installation lookups and POST /app/installations/{installation_id}/access_tokens. */
export function registerAppRoutes(app: FastifyInstance, ctx: EmulatorContext, apps: AppRegistry): void {
  const ts = (ms: number) => ctx.clock.timestamp(ms);

  /** The App the request's JWT proves, or a 401 sent. Answers carry the emulator's clock as their Date. */
  function authenticateApp(request: FastifyRequest, reply: FastifyReply): FixtureApp | undefined {
    reply.header("date", httpDate(ctx.clock.now()));
    const verdict = apps.verifyJwt(request.headers.authorization);
    if ("app" in verdict) return verdict.app;
    sendError(reply, 401, verdict.error, { docs: JWT_DOCS });
    return undefined;
  }

  function ownerView(base: string, login: string) {
    const org = ctx.access.findOrg(login);
    return userView(base, { login: org?.login ?? login, id: org?.id ?? 0, type: "Organization" });
  }

  function appView(base: string, fixtureApp: FixtureApp) {
    return {
      id: fixtureApp.id,
      slug: fixtureApp.slug,
      node_id: nodeId("Integration", fixtureApp.id),
      client_id: fixtureApp.client_id,
      owner: ownerView(base, fixtureApp.owner),
      name: fixtureApp.name,
      description: fixtureApp.description,
      external_url: `${webBase(base)}/apps/${fixtureApp.slug}`,
      html_url: `${webBase(base)}/apps/${fixtureApp.slug}`,
      created_at: ts(CREATED_AT_MS),
      updated_at: ts(CREATED_AT_MS),
      permissions: fixtureApp.permissions,
      events: fixtureApp.events,
      installations_count: ctx.fixture.installations.filter((i) => i.app_id === fixtureApp.id).length,
    };
  }

  function installationView(base: string, installation: FixtureInstallation, fixtureApp: FixtureApp) {
    const org = ctx.access.findOrg(installation.account);
    return {
      id: installation.id,
      account: ownerView(base, installation.account),
      repository_selection: installation.repositories === "all" ? "all" : "selected",
      access_tokens_url: `${base}/app/installations/${installation.id}/access_tokens`,
      repositories_url: `${base}/installation/repositories`,
      html_url: `${webBase(base)}/organizations/${installation.account}/settings/installations/${installation.id}`,
      app_id: fixtureApp.id,
      app_slug: fixtureApp.slug,
      target_id: org?.id ?? 0,
      target_type: "Organization",
      permissions: installation.permissions,
      events: fixtureApp.events,
      created_at: ts(CREATED_AT_MS),
      updated_at: ts(CREATED_AT_MS),
      single_file_name: null,
      has_multiple_single_files: false,
      single_file_paths: [],
      suspended_by: null,
      suspended_at: null,
    };
  }

  serve(app, "apps/get-authenticated", async (request, reply) => {
    const fixtureApp = authenticateApp(request, reply);
    if (fixtureApp) return reply.send(appView(baseUrlOf(request), fixtureApp));
  });

  serve<{ Params: { org: string } }>(app, "apps/get-org-installation", async (request, reply) => {
    const fixtureApp = authenticateApp(request, reply);
    if (!fixtureApp) return;
    const installation = apps.installationFor(fixtureApp.id, request.params.org);
    if (!installation)
      return sendError(reply, 404, "Not Found", { docs: "/apps/apps#get-an-organization-installation-for-the-authenticated-app" });
    return reply.send(installationView(baseUrlOf(request), installation, fixtureApp));
  });

  serve<{ Params: { owner: string; repo: string } }>(app, "apps/get-repo-installation", async (request, reply) => {
    const fixtureApp = authenticateApp(request, reply);
    if (!fixtureApp) return;
    const installation = apps.installationFor(fixtureApp.id, request.params.owner);
    const repo = ctx.access.findRepo(request.params.owner, request.params.repo);
    const covers =
      installation &&
      repo &&
      (installation.repositories === "all" || installation.repositories.some((r) => r.toLowerCase() === repo.name.toLowerCase()));
    if (!covers) return sendError(reply, 404, "Not Found", { docs: "/apps/apps#get-a-repository-installation-for-the-authenticated-app" });
    return reply.send(installationView(baseUrlOf(request), installation, fixtureApp));
  });

  serve<{ Params: { installation_id: string }; Body: unknown }>(app, "apps/create-installation-access-token", async (request, reply) => {
    const fixtureApp = authenticateApp(request, reply);
    if (!fixtureApp) return;
    const docs = "/apps/apps#create-an-installation-access-token-for-an-app";
    const installation = apps.installation(Number(request.params.installation_id));
    if (!installation || installation.app_id !== fixtureApp.id) return sendError(reply, 404, "Not Found", { docs });
    const body = (typeof request.body === "object" && request.body !== null ? request.body : {}) as {
      repositories?: unknown;
      repository_ids?: unknown;
      permissions?: unknown;
    };
    const names = narrowRepositories(body, installation);
    if (names === null) {
      return sendError(
        reply,
        422,
        "There is at least one repository that does not exist or is not accessible to the parent installation.",
        { docs },
      );
    }
    const permissions = narrowPermissions(body.permissions, installation);
    if (permissions === null) return sendError(reply, 422, "The permissions requested are not granted to this installation.", { docs });
    const minted = apps.mint(installation, { ...(names && { repositories: names }), ...(permissions && { permissions }) });
    return reply.code(201).send({
      token: minted.token,
      expires_at: ts(minted.expiresAtMs),
      permissions: minted.permissions,
      repository_selection: minted.repositories === "all" ? "all" : "selected",
    });
  });

  /** The repository names asked for (undefined: not narrowed), or null when one is outside the installation. */
  function narrowRepositories(
    body: { repositories?: unknown; repository_ids?: unknown },
    installation: FixtureInstallation,
  ): string[] | undefined | null {
    if (body.repositories === undefined && body.repository_ids === undefined) return undefined;
    const org = ctx.access.findOrg(installation.account);
    const byName = Array.isArray(body.repositories) ? body.repositories : [];
    const byId = Array.isArray(body.repository_ids) ? body.repository_ids : [];
    const found = [
      ...byName.map((name) => org?.repositories.find((r) => typeof name === "string" && r.name.toLowerCase() === name.toLowerCase())),
      ...byId.map((id) => org?.repositories.find((r) => r.id === id)),
    ];
    if (found.some((r) => r === undefined)) return null;
    const names = found.map((r) => r!.name);
    const granted = installation.repositories;
    if (granted !== "all" && names.some((n) => !granted.some((g) => g.toLowerCase() === n.toLowerCase()))) return null;
    return names;
  }

  /** The permissions asked for (undefined: not narrowed), or null when one exceeds the installation's grant. */
  function narrowPermissions(asked: unknown, installation: FixtureInstallation): Record<string, AccessLevel> | undefined | null {
    if (asked === undefined) return undefined;
    if (typeof asked !== "object" || asked === null) return null;
    const out: Record<string, AccessLevel> = {};
    for (const [name, level] of Object.entries(asked)) {
      const granted = installation.permissions[name];
      if (!granted || !(level in LEVELS) || LEVELS[level as AccessLevel] > LEVELS[granted]) return null;
      out[name] = level as AccessLevel;
    }
    return out;
  }
}
