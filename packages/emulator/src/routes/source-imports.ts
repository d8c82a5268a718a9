import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { SOURCE_IMPORTS_RETIRED_AT, type MapCommitAuthorBody, type StartImportBody, type UpdateImportBody } from "@shiplog/client";
import type { EmulatorContext } from "../emulator-context.js";
import type { StoredImport } from "../import-store.js";
import { baseUrlOf } from "../base-url.js";
import { sendError } from "../service-errors.js";
import { sendConditionally } from "./conditional-get.js";
import { serve } from "./route-table.js";

const DOCS = "/migrations/source-imports";

/**
 * The answer from the cutoff on: **410 Gone**, with a message naming the date.
 *
 * Why 410 and not 404: RFC 9110 (15.5.11) defines 410 as "no longer available at the origin server and
 * this condition is likely to be permanent", which is exactly a retired endpoint; section 7 of the spec lists
 * 410 among the codes these endpoints use; and the service's own documentation answers a retired API version
 * with `410 Gone`. The service has answered removed endpoints with 404 before (the OAuth application API in
 * 2020), but on these routes 404 already means "this repository has no import" or "no such repository",
 * so a 404 would make retirement indistinguishable from an empty result; 410 lets a client say clearly what
 * happened (the client maps it to `RetiredEndpointError`). The check runs after authentication and before
 * permissions: a retired endpoint is gone for every caller.
 */
export const RETIRED_STATUS = 410;
export const RETIRED_MESSAGE =
  `The Source Imports API has been retired: these endpoints closed at ${SOURCE_IMPORTS_RETIRED_AT} ` +
  "(00:00 UTC on April 12, 2024) and are no longer available";
export const MAINTENANCE_MESSAGE = "Unavailable due to service under maintenance";

type RepoParams = { owner: string; repo: string };

/** Source imports (spec 4.4b) over the simulated importer; retired from 2024-04-12 by the emulator's clock. */
export function registerSourceImportRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { access } = ctx;
  const store = ctx.state.imports;
  app.addHook("onClose", async () => store.stopTimer());

  /** Runs before the permission checks: gone after the cutoff, 503 in maintenance. */
  async function gate(_request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    if (store.retired) return sendError(reply, RETIRED_STATUS, RETIRED_MESSAGE, { docs: DOCS });
    if (store.maintenance) return sendError(reply, 503, MAINTENANCE_MESSAGE, { docs: DOCS });
    return undefined;
  }
  const gated = { onRequest: gate };

  /** The repository by its canonical names (the access hook has checked it exists). */
  function target(params: RepoParams) {
    const org = access.findOrg(params.owner)!;
    const repo = access.findRepo(params.owner, params.repo)!;
    return { owner: org.login, repo: repo.name, repositoryId: repo.id, actionsEnabled: repo.actions_enabled };
  }

  function existing(params: RepoParams, reply: FastifyReply): StoredImport | undefined {
    const stored = store.get(params.owner, params.repo);
    if (!stored) sendError(reply, 404, "Not Found", { docs: DOCS });
    return stored;
  }

  const authorView = (
    stored: StoredImport,
    author: { id: number; remote_id: string; remote_name: string; email: string; name: string },
  ) => {
    const importUrl = String(store.render(stored).url);
    return { ...author, url: `${importUrl}/authors/${author.id}`, import_url: importUrl };
  };

  serve<{ Params: RepoParams }>(app, "migrations/get-import-status", gated, async (request, reply) => {
    const stored = existing(request.params, reply);
    if (!stored) return reply;
    return sendConditionally(request, reply, store.render(stored));
  });

  serve<{ Params: RepoParams }>(app, "migrations/start-import", gated, async (request, reply) => {
    const body = request.body as StartImportBody;
    const repo = target(request.params);
    if (repo.actionsEnabled) {
      return sendError(reply, 422, "Validation Failed", {
        docs: DOCS,
        errors: [
          {
            resource: "Import",
            field: "repository",
            code: "custom",
            message: "Importing into a repository with Actions enabled is not supported",
          },
        ],
      });
    }
    // One import per repository: the table of 3.1 has a new import start only after DELETE import.
    if (store.get(repo.owner, repo.repo)) {
      return sendError(reply, 422, "Validation Failed", {
        docs: DOCS,
        errors: [
          {
            resource: "Import",
            field: "repository",
            code: "already_exists",
            message: "An import already exists for this repository; cancel it before starting another",
          },
        ],
      });
    }
    const stored = store.start({ owner: repo.owner, repo: repo.repo, repositoryId: repo.repositoryId, baseUrl: baseUrlOf(request) }, body);
    return reply.code(201).send(store.render(stored));
  });

  serve<{ Params: RepoParams }>(app, "migrations/update-import", gated, async (request, reply) => {
    // The body is optional (and nullable in the OpenAPI description): none at all restarts the import.
    const body = (request.body ?? {}) as UpdateImportBody;
    const stored = existing(request.params, reply);
    if (!stored) return reply;
    const result = store.update(stored, body);
    if (!result.ok) {
      return sendError(reply, 422, "Validation Failed", {
        docs: DOCS,
        errors: [{ resource: "Import", field: result.refusal.field, code: "invalid", message: result.refusal.message }],
      });
    }
    return reply.send(store.render(stored));
  });

  serve<{ Params: RepoParams }>(app, "migrations/cancel-import", gated, async (request, reply) => {
    const stored = existing(request.params, reply);
    if (!stored) return reply;
    store.cancel(stored);
    return reply.code(204).send();
  });

  serve<{ Params: RepoParams; Querystring: { since?: string } }>(app, "migrations/get-commit-authors", gated, async (request, reply) => {
    const raw = request.query.since;
    if (raw !== undefined && !/^\d+$/.test(raw)) {
      return sendError(reply, 422, "Validation Failed", {
        docs: DOCS,
        errors: [{ resource: "ImportAuthor", field: "since", code: "invalid", message: "since must be a non-negative integer" }],
      });
    }
    const stored = existing(request.params, reply);
    if (!stored) return reply;
    const since = raw === undefined ? 0 : Number(raw);
    return sendConditionally(
      request,
      reply,
      stored.state.authors.filter((a) => a.id > since).map((a) => authorView(stored, a)),
    );
  });

  serve<{ Params: RepoParams & { author_id: string } }>(app, "migrations/map-commit-author", gated, async (request, reply) => {
    if (!/^\d+$/.test(request.params.author_id)) return sendError(reply, 404, "Not Found", { docs: DOCS });
    const body = (request.body ?? {}) as MapCommitAuthorBody;
    const stored = existing(request.params, reply);
    if (!stored) return reply;
    const author = store.mapAuthor(stored, Number(request.params.author_id), body);
    if (!author) return sendError(reply, 404, "Not Found", { docs: DOCS });
    return reply.send(authorView(stored, author));
  });

  serve<{ Params: RepoParams }>(app, "migrations/get-large-files", gated, async (request, reply) => {
    const stored = existing(request.params, reply);
    if (!stored) return reply;
    return sendConditionally(request, reply, stored.state.largeFiles);
  });

  serve<{ Params: RepoParams }>(app, "migrations/set-lfs-preference", gated, async (request, reply) => {
    const body = request.body as { use_lfs: "opt_in" | "opt_out" };
    const stored = existing(request.params, reply);
    if (!stored) return reply;
    store.setLfs(stored, body.use_lfs);
    return reply.send(store.render(stored));
  });
}
