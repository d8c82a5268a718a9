import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { EmulatorContext } from "../emulator-context.js";
import type { StoredThread } from "../notification-store.js";
import { baseUrlOf } from "../base-url.js";
import { httpDate, repositoryView } from "../resource-views.js";
import { sendError } from "../service-errors.js";
import { pageOf, readPage, type ListLimits } from "./list-paging.js";
import { ifNoneMatchNames, ifNoneMatchOf, sendConditionally, weakEtag } from "./conditional-get.js";
import { serve } from "./route-table.js";

const DOCS = "/activity/notifications";

const BACKGROUND_MESSAGE =
  "Unread notifications couldn't be marked in a single request. Notifications are being marked as read in the background.";

/** Section 8: GET /notifications pages by 50 at most (default 50); a repository's by 100 (default 30). */
const NOTIFICATIONS_PAGE_LIMITS: ListLimits = { defaultPerPage: 50, maxPerPage: 50 };
const REPO_NOTIFICATIONS_PAGE_LIMITS: ListLimits = { defaultPerPage: 30, maxPerPage: 100 };

type ListQuery = { all?: string; participating?: string; since?: string; before?: string; page?: string; per_page?: string };

/** Notification threads, marking and subscriptions (spec 4.3) with the state machine of 3.2 and polling of 6.2. */
export function registerNotificationRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const store = ctx.state.notifications;
  const clock = ctx.clock;
  const userOf = (request: FastifyRequest) => ctx.access.userOf(request.principal) ?? "";
  const ts = (ms: number) => clock.timestamp(ms);

  function threadView(base: string, thread: StoredThread) {
    const url = `${base}/notifications/threads/${thread.id}`;
    return {
      id: String(thread.id),
      repository: repositoryView(base, {
        owner: { login: thread.repo.owner, id: thread.repo.ownerId, type: thread.repo.ownerType },
        name: thread.repo.name,
        id: thread.repo.id,
        private: thread.repo.private,
      }),
      subject: {
        title: thread.subject.title,
        url: thread.subject.path === null ? null : `${base}${thread.subject.path}`,
        latest_comment_url: thread.subject.latestCommentPath === null ? null : `${base}${thread.subject.latestCommentPath}`,
        type: thread.subject.type,
      },
      reason: thread.reason,
      unread: thread.unread,
      updated_at: ts(thread.updatedAtMs),
      last_read_at: thread.lastReadAtMs === null ? null : ts(thread.lastReadAtMs),
      url,
      subscription_url: `${url}/subscription`,
    };
  }

  function subscriptionView(base: string, thread: StoredThread) {
    const url = `${base}/notifications/threads/${thread.id}`;
    return {
      subscribed: thread.subscription === "subscribed",
      ignored: thread.subscription === "ignored",
      reason: thread.subscriptionReason,
      created_at: thread.subscriptionCreatedAtMs === null ? null : ts(thread.subscriptionCreatedAtMs),
      url: `${url}/subscription`,
      thread_url: url,
    };
  }

  /**
   * The listings: filters, `X-Poll-Interval`, pages, `Last-Modified` and a weak `ETag`. 304 when `If-None-Match`
   * names the ETag; `If-Modified-Since` decides only when no `If-None-Match` is sent (RFC 9110 13.1.3).
   */
  function list(
    request: FastifyRequest<{ Querystring: ListQuery }>,
    reply: FastifyReply,
    limits: ListLimits,
    repo?: { owner: string; name: string },
  ) {
    const user = userOf(request);
    const query = request.query;
    const errors: { field: string; message: string }[] = [];
    const flag = (name: "all" | "participating") => {
      const raw = query[name];
      if (raw === undefined || raw === "false") return false;
      if (raw === "true") return true;
      errors.push({ field: name, message: `${name} must be true or false` });
      return false;
    };
    const time = (name: "since" | "before") => {
      const raw = query[name];
      if (raw === undefined) return undefined;
      const ms = Date.parse(raw);
      if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(raw))
        errors.push({ field: name, message: `${name} must be an ISO 8601 timestamp` });
      return ms;
    };
    const filter = { all: flag("all"), participating: flag("participating"), sinceMs: time("since"), beforeMs: time("before"), repo };
    const paging = readPage(query, limits);
    if (!paging.ok) errors.push({ field: paging.field, message: `${paging.field} must be a positive integer` });
    if (errors.length > 0) {
      return sendError(reply, 422, "Validation Failed", {
        docs: DOCS,
        errors: errors.map((e) => ({ resource: "Notification", field: e.field, code: "invalid" as const, message: e.message })),
      });
    }
    const lastModified = store.lastModifiedMs(user);
    reply.header("last-modified", httpDate(lastModified));
    reply.header("x-poll-interval", String(store.pollIntervalSeconds));
    const base = baseUrlOf(request);
    const threads = store.list(user, filter);
    const page = paging.ok ? pageOf(threads, paging.page, paging.perPage, request, reply, base) : [];
    const body = page.map((t) => threadView(base, t));
    const etag = weakEtag(`${JSON.stringify(body)}|${String(reply.getHeader("link") ?? "")}`);
    reply.header("etag", etag);
    const ifNoneMatch = ifNoneMatchOf(request);
    const since = Date.parse(String(request.headers["if-modified-since"] ?? ""));
    const unchanged = ifNoneMatch !== undefined ? ifNoneMatchNames(ifNoneMatch, etag) : !Number.isNaN(since) && lastModified <= since;
    if (unchanged) {
      reply.removeHeader("link");
      return reply.code(304).send();
    }
    return reply.send(body);
  }

  function markResult(reply: FastifyReply, background: boolean) {
    reply.header("date", httpDate(clock.now()));
    if (background) return reply.code(202).send({ message: BACKGROUND_MESSAGE });
    return reply.code(205).send();
  }

  function threadOf(request: FastifyRequest<{ Params: { thread_id: string } }>, reply: FastifyReply): StoredThread | undefined {
    const id = /^\d+$/.test(request.params.thread_id) ? Number(request.params.thread_id) : NaN;
    const thread = Number.isNaN(id) ? undefined : store.get(userOf(request), id);
    if (!thread) sendError(reply, 404, "Not Found", { docs: DOCS });
    return thread;
  }

  serve<{ Querystring: ListQuery }>(app, "activity/list-notifications-for-authenticated-user", (request, reply) =>
    list(request, reply, NOTIFICATIONS_PAGE_LIMITS),
  );

  serve(app, "activity/mark-notifications-as-read", (request, reply) => {
    const body = (request.body ?? {}) as { last_read_at?: string; read?: boolean };
    const lastReadAtMs = body.last_read_at === undefined ? clock.now() : Date.parse(body.last_read_at);
    const { background } = store.markRead(userOf(request), { lastReadAtMs, read: body.read ?? true });
    return markResult(reply, background !== undefined);
  });

  serve<{ Params: { thread_id: string } }>(app, "activity/get-thread", (request, reply) => {
    const thread = threadOf(request, reply);
    if (!thread) return reply;
    return sendConditionally(request, reply, threadView(baseUrlOf(request), thread));
  });

  serve<{ Params: { thread_id: string } }>(app, "activity/mark-thread-as-read", (request, reply) => {
    const thread = threadOf(request, reply);
    if (!thread) return reply;
    store.markThreadRead(thread);
    return reply.code(205).send();
  });

  serve<{ Params: { thread_id: string } }>(app, "activity/mark-thread-as-done", (request, reply) => {
    const thread = threadOf(request, reply);
    if (!thread) return reply;
    store.markThreadDone(thread);
    return reply.code(204).send();
  });

  serve<{ Params: { thread_id: string } }>(app, "activity/get-thread-subscription-for-authenticated-user", (request, reply) => {
    const thread = threadOf(request, reply);
    if (!thread) return reply;
    // No subscription (never subscribed, or deleted: muted) reads as not found, as on the service.
    if (thread.subscription === "none" || thread.subscription === "muted") return sendError(reply, 404, "Not Found", { docs: DOCS });
    return sendConditionally(request, reply, subscriptionView(baseUrlOf(request), thread));
  });

  serve<{ Params: { thread_id: string } }>(app, "activity/set-thread-subscription", (request, reply) => {
    const body = (request.body ?? {}) as { ignored?: boolean };
    const thread = threadOf(request, reply);
    if (!thread) return reply;
    store.setSubscription(thread, body.ignored ?? false);
    return reply.send(subscriptionView(baseUrlOf(request), thread));
  });

  serve<{ Params: { thread_id: string } }>(app, "activity/delete-thread-subscription", (request, reply) => {
    const thread = threadOf(request, reply);
    if (!thread) return reply;
    store.deleteSubscription(thread);
    return reply.code(204).send();
  });

  type RepoListing = { Params: { owner: string; repo: string }; Querystring: ListQuery };
  serve<RepoListing>(app, "activity/list-repo-notifications-for-authenticated-user", (request, reply) => {
    const repo = ctx.access.findRepo(request.params.owner, request.params.repo)!;
    const owner = ctx.access.findOrg(request.params.owner)!.login;
    return list(request, reply, REPO_NOTIFICATIONS_PAGE_LIMITS, { owner, name: repo.name });
  });

  serve<{ Params: { owner: string; repo: string } }>(app, "activity/mark-repo-notifications-as-read", (request, reply) => {
    const body = (request.body ?? {}) as { last_read_at?: string };
    const repo = ctx.access.findRepo(request.params.owner, request.params.repo)!;
    const owner = ctx.access.findOrg(request.params.owner)!.login;
    const lastReadAtMs = body.last_read_at === undefined ? clock.now() : Date.parse(body.last_read_at);
    const { background } = store.markRead(userOf(request), { lastReadAtMs, read: true, repo: { owner, name: repo.name } });
    return markResult(reply, background !== undefined);
  });
}
