import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CreateRefBody, CreateTagBody } from "./request-bodies.js";
import type { Principal } from "../access-control.js";
import type { EmulatorContext } from "../emulator-context.js";
import { gitTime, isoWithOffset, tagContent, type GitIdent, type GitObjectKind } from "../git-objects.js";
import { tagVerification } from "../tag-signature.js";
import type { GitRepository, StoredCommit, StoredTag } from "../git-store.js";
import { baseUrlOf, webBase } from "../base-url.js";
import { sendError } from "../service-errors.js";
import { sendConditionally } from "./conditional-get.js";
import { registerGitRefRoutes } from "./git-refs.js";
import { serve } from "./route-table.js";

const TAG_DOCS = "/git/tags";
const COMMIT_DOCS = "/git/commits";
const REF_DOCS = "/git/refs";

const OBJECT_PATHS: Record<GitObjectKind, string> = { commit: "commits", tree: "trees", blob: "blobs", tag: "tags" };

type RepoParams = { owner: string; repo: string };

/** Tag objects and references (spec 4.2) over each repository's git data, with git's object ids. */
export function registerGitRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const { state, fixture, clock } = ctx;

  /** The repository's git data, or a 409 answer when it has no commits. */
  function repositoryOf(request: FastifyRequest<{ Params: RepoParams }>, reply: FastifyReply): GitRepository | undefined {
    const git = state.git.repository(request.params.owner, request.params.repo);
    if (!git) {
      sendError(reply, 404, "Not Found");
      return undefined;
    }
    if (git.empty) {
      sendError(reply, 409, "Git Repository is empty.", { docs: TAG_DOCS });
      return undefined;
    }
    return git;
  }

  /** Who tags when the request names nobody: the token's user, or the app's bot for an installation. */
  function defaultTagger(principal: Principal): { name: string; email: string } {
    const login = principal.kind === "token" ? principal.token.user : undefined;
    const user = login
      ? fixture.users.find((u) => u.login.toLowerCase() === login.toLowerCase())
      : fixture.users.find((u) => u.type === "Bot");
    const name = user?.login ?? login ?? "service-actions[bot]";
    const id = user?.id ?? 0;
    return { name, email: `${id}+${name}@users.noreply.service.example` };
  }

  serve<{ Params: RepoParams }>(app, "git/create-tag", async (request, reply) => {
    const git = repositoryOf(request, reply);
    if (!git) return reply;
    const body = request.body as CreateTagBody;
    const target = git.object(body.object);
    if (!target) {
      return sendError(reply, 422, "Object does not exist", {
        docs: TAG_DOCS,
        errors: [
          {
            resource: "Tag",
            field: "object",
            code: "invalid",
            message: `object ${body.object} does not exist in ${git.owner}/${git.name}`,
          },
        ],
      });
    }
    if (target.type !== body.type) {
      return sendError(reply, 422, "Validation Failed", {
        docs: TAG_DOCS,
        errors: [
          { resource: "Tag", field: "type", code: "invalid", message: `object ${body.object} is a ${target.type}, not a ${body.type}` },
        ],
      });
    }
    const who = body.tagger ?? defaultTagger(request.principal);
    const tagger: GitIdent = { name: who.name, email: who.email, ...gitTime(body.tagger?.date ?? clock.timestamp()) };
    const stored = git.createTag({ tag: body.tag, message: body.message, tagger, object: body.object, type: body.type });
    const view = tagView(baseUrlOf(request), git, stored);
    return reply.code(201).header("location", view.url).send(view);
  });

  serve<{ Params: RepoParams & { tag_sha: string } }>(app, "git/get-tag", async (request, reply) => {
    const git = repositoryOf(request, reply);
    if (!git) return reply;
    const sha = request.params.tag_sha.toLowerCase();
    const stored = /^[0-9a-f]{40}$/.test(sha) ? git.tag(sha) : undefined;
    if (!stored) return sendError(reply, 404, "Not Found", { docs: TAG_DOCS });
    return sendConditionally(request, reply, tagView(baseUrlOf(request), git, stored));
  });

  serve<{ Params: RepoParams }>(app, "git/create-ref", async (request, reply) => {
    const git = repositoryOf(request, reply);
    if (!git) return reply;
    const body = request.body as CreateRefBody;
    if (!git.object(body.sha)) {
      return sendError(reply, 422, "Object does not exist", {
        docs: REF_DOCS,
        errors: [
          {
            resource: "Reference",
            field: "sha",
            code: "invalid",
            message: `object ${body.sha} does not exist in ${git.owner}/${git.name}`,
          },
        ],
      });
    }
    if (!git.createRef(body.ref, body.sha)) {
      return sendError(reply, 422, "Reference already exists", {
        docs: REF_DOCS,
        errors: [
          { resource: "Reference", field: "ref", code: "already_exists", message: `${body.ref} already points at ${git.ref(body.ref)}` },
        ],
      });
    }
    const view = refView(baseUrlOf(request), git, body.ref, body.sha);
    return reply.code(201).header("location", view.url).send(view);
  });

  serve<{ Params: RepoParams & { "*": string } }>(app, "git/get-ref", async (request, reply) => {
    const git = repositoryOf(request, reply);
    if (!git) return reply;
    const name = `refs/${request.params["*"]}`;
    const sha = git.ref(name);
    if (sha === undefined) return sendError(reply, 404, "Not Found", { docs: REF_DOCS });
    return sendConditionally(request, reply, refView(baseUrlOf(request), git, name, sha));
  });

  // git/get-commit: a commit object's fields, which reproduce its id; 404 for an id that is no commit here.
  serve<{ Params: RepoParams & { commit_sha: string } }>(app, "git/get-commit", async (request, reply) => {
    const git = repositoryOf(request, reply);
    if (!git) return reply;
    const commit = git.findCommit(request.params.commit_sha.toLowerCase());
    if (!commit) return sendError(reply, 404, "Not Found", { docs: COMMIT_DOCS });
    return sendConditionally(request, reply, commitView(baseUrlOf(request), git, commit));
  });

  registerGitRefRoutes(app, repositoryOf, (request, git, ref, sha) => refView(baseUrlOf(request), git, ref, sha));
}

const nodeId = (kind: string, value: string) => Buffer.from(`03:${kind}${value}`, "utf8").toString("base64");

function objectPointer(base: string, git: GitRepository, sha: string) {
  const type = git.object(sha)?.type ?? "commit";
  return { type, sha, url: `${base}/repos/${git.owner}/${git.name}/git/${OBJECT_PATHS[type]}/${sha}` };
}

/** A tag object as the service shows it: its fields reproduce its sha (message as stored, date with its offset). */
function tagView(base: string, git: GitRepository, tag: StoredTag) {
  return {
    node_id: nodeId("Tag", tag.sha),
    tag: tag.tag,
    sha: tag.sha,
    url: `${base}/repos/${git.owner}/${git.name}/git/tags/${tag.sha}`,
    message: tag.message,
    tagger: { name: tag.tagger.name, email: tag.tagger.email, date: isoWithOffset(tag.tagger.seconds, tag.tagger.offset) },
    object: objectPointer(base, git, tag.object),
    verification: tagVerification(tagContent(tag).toString("utf8"), tag.message),
  };
}

const identView = (ident: GitIdent) => ({ name: ident.name, email: ident.email, date: isoWithOffset(ident.seconds, ident.offset) });

/** A commit as the service shows it (git data API): its parents and tree by id, unsigned. */
function commitView(base: string, git: GitRepository, commit: StoredCommit) {
  const api = `${base}/repos/${git.owner}/${git.name}/git`;
  const web = (sha: string) => `${webBase(base)}/${git.owner}/${git.name}/commit/${sha}`;
  return {
    sha: commit.sha,
    node_id: nodeId("Commit", commit.sha),
    url: `${api}/commits/${commit.sha}`,
    html_url: web(commit.sha),
    author: identView(commit.author),
    committer: identView(commit.committer),
    message: commit.message,
    tree: { sha: commit.tree, url: `${api}/trees/${commit.tree}` },
    parents: commit.parents.map((sha) => ({ sha, url: `${api}/commits/${sha}`, html_url: web(sha) })),
    verification: { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null },
  };
}

function refView(base: string, git: GitRepository, ref: string, sha: string) {
  return {
    ref,
    node_id: nodeId("Ref", ref),
    url: `${base}/repos/${git.owner}/${git.name}/git/${ref}`,
    object: objectPointer(base, git, sha),
  };
}
