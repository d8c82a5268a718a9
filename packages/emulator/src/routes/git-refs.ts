import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { GitRepository } from "../git-store.js";
import { sendError } from "../service-errors.js";
import type { UpdateRefBody } from "./request-bodies.js";
import { sendConditionally } from "./conditional-get.js";
import { serve } from "./route-table.js";

const REF_DOCS = "/git/refs";

type RefParams = { owner: string; repo: string; "*": string };

/** How the git routes find a repository's data (answering 404/409 themselves when there is none). */
export type RepositoryLookup = (request: FastifyRequest<{ Params: RefParams }>, reply: FastifyReply) => GitRepository | undefined;

/** A reference as the service shows it. */
export type RefView = (request: FastifyRequest, git: GitRepository, ref: string, sha: string) => unknown;

/**
 * Listing references by prefix, moving and deleting them (git/list-matching-refs, git/update-ref, git/delete-ref).
 * The `{ref}` of these paths is given without `refs/` (`tags/v1`) and keeps its slashes.
 */
export function registerGitRefRoutes(app: FastifyInstance, repositoryOf: RepositoryLookup, refView: RefView): void {
  // The service matches by prefix: `tags/v1` lists v1, v1.4 and v10; an empty ref lists every reference.
  serve<{ Params: RefParams }>(app, "git/list-matching-refs", async (request, reply) => {
    const git = repositoryOf(request, reply);
    if (!git) return reply;
    const prefix = `refs/${request.params["*"]}`;
    const matching = git.refs().filter(({ ref }) => ref.startsWith(prefix));
    return sendConditionally(
      request,
      reply,
      matching.map(({ ref, sha }) => refView(request, git, ref, sha)),
    );
  });

  serve<{ Params: RefParams }>(app, "git/update-ref", async (request, reply) => {
    const git = repositoryOf(request, reply);
    if (!git) return reply;
    const body = request.body as UpdateRefBody;
    const name = `refs/${request.params["*"]}`;
    const current = git.ref(name);
    if (current === undefined) return sendError(reply, 422, "Reference does not exist", { docs: REF_DOCS });
    if (!git.object(body.sha)) return sendError(reply, 422, "Object does not exist", { docs: REF_DOCS });
    // Without force only a fast-forward is allowed: the new commit must descend from the current one.
    if (!body.force && current !== body.sha && !git.isFastForward(current, body.sha)) {
      return sendError(reply, 422, "Update is not a fast forward", { docs: REF_DOCS });
    }
    git.updateRef(name, body.sha);
    return reply.send(refView(request, git, name, body.sha));
  });

  serve<{ Params: RefParams }>(app, "git/delete-ref", async (request, reply) => {
    const git = repositoryOf(request, reply);
    if (!git) return reply;
    const name = `refs/${request.params["*"]}`;
    if (name === `refs/heads/${git.defaultBranch}`) {
      return sendError(reply, 422, "Cannot delete the default branch", { docs: REF_DOCS });
    }
    if (!git.deleteRef(name)) return sendError(reply, 422, "Reference does not exist", { docs: REF_DOCS });
    return reply.code(204).send();
  });
}
