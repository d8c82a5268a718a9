import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Principal } from "../access-control.js";
import type { EmulatorContext } from "../emulator-context.js";
import type { StoredEvent } from "../event-feeds.js";
import { baseUrlOf } from "../base-url.js";
import { actorView, eventOrgView } from "../resource-views.js";
import { sendError } from "../service-errors.js";
import { notModifiedSince } from "./conditional-get.js";
import { pageOf, readPageLeniently, type ListLimits } from "./list-paging.js";
import type { OperationId } from "@shiplog/client/endpoints";
import { serve } from "./route-table.js";

const DOCS = "/activity/events";
/** Section 8: feeds page by 100 at most; defaults are not in the spec (the OpenAPI gives 30, and 15 for /events). */
const EVENT_FEED_PAGE_LIMITS: ListLimits = { defaultPerPage: 30, maxPerPage: 100 };
const PUBLIC_EVENTS_PAGE_LIMITS: ListLimits = { defaultPerPage: 15, maxPerPage: 100 };

/** Activity event feeds (spec 4.4) with the rules of 6.1: 300 events, 30 days, ETag and 304, X-Poll-Interval. */
export function registerActivityRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const feeds = ctx.state.events;
  const { access, clock } = ctx;

  const userNamed = (login: string) => ctx.fixture.users.find((u) => u.login.toLowerCase() === login.toLowerCase());
  const isCaller = (principal: Principal, login: string) => access.userOf(principal)?.toLowerCase() === login.toLowerCase();
  const canSee = (principal: Principal, event: StoredEvent) =>
    event.public || access.canSeeRepo(principal, event.repo.owner, event.repo.name);
  const fullName = (event: StoredEvent) => `${event.repo.owner}/${event.repo.name}`.toLowerCase();

  function eventView(base: string, event: StoredEvent) {
    const payload = withBase(base, event.payload) as Record<string, unknown>;
    return {
      id: String(event.id),
      type: event.type,
      actor: actorView(base, event.actor),
      repo: {
        id: event.repo.id,
        name: `${event.repo.owner}/${event.repo.name}`,
        url: `${base}/repos/${event.repo.owner}/${event.repo.name}`,
      },
      payload,
      public: event.public,
      created_at: clock.timestamp(event.createdAtMs),
      ...(event.org ? { org: eventOrgView(base, event.org) } : {}),
    };
  }

  /** Answers a feed: one page, its `ETag` (304 when `If-None-Match` names it), `X-Poll-Interval`, `Link`. */
  function answer(request: FastifyRequest, reply: FastifyReply, events: StoredEvent[], limits: ListLimits) {
    const { page, perPage } = readPageLeniently(request.query as Record<string, unknown>, limits);
    const base = baseUrlOf(request);
    const items = pageOf(events, page, perPage, request, reply, base);
    const lastPage = Math.max(1, Math.ceil(events.length / perPage));
    const unchanged = notModifiedSince(request, reply, `${items.map((e) => e.id).join(",")}|${page}|${perPage}|${lastPage}`);
    reply.header("x-poll-interval", String(feeds.pollIntervalSeconds));
    reply.header("cache-control", "private, max-age=60, s-maxage=60");
    if (unchanged) {
      reply.removeHeader("link");
      return reply.code(304).send();
    }
    return reply.send(items.map((e) => eventView(base, e)));
  }

  serve(app, "activity/list-public-events", (request, reply) =>
    answer(
      request,
      reply,
      feeds.feed((e) => e.public),
      PUBLIC_EVENTS_PAGE_LIMITS,
    ),
  );

  serve<{ Params: { owner: string; repo: string } }>(
    app,
    "activity/list-public-events-for-repo-network",
    {
      // A renamed network answers 301 to its current name before the repository lookup.
      onRequest: async (request, reply) => {
        const { owner, repo } = request.params as { owner: string; repo: string };
        const renamed = feeds.renamedNetwork(owner, repo);
        if (!renamed || access.findRepo(owner, repo)) return;
        const query = request.url.includes("?") ? request.url.slice(request.url.indexOf("?")) : "";
        const location = `${baseUrlOf(request)}/networks/${renamed.owner}/${renamed.name}/events${query}`;
        reply.header("location", location);
        return reply
          .code(301)
          .send({ message: "Moved Permanently", url: location, documentation_url: `https://docs.service.example/rest${DOCS}` });
      },
    },
    (request, reply) => {
      const name = `${request.params.owner}/${request.params.repo}`.toLowerCase();
      return answer(
        request,
        reply,
        feeds.feed((e) => e.public && fullName(e) === name),
        EVENT_FEED_PAGE_LIMITS,
      );
    },
  );

  serve<{ Params: { org: string } }>(app, "activity/list-public-org-events", (request, reply) => {
    const org = request.params.org.toLowerCase();
    return answer(
      request,
      reply,
      feeds.feed((e) => e.public && e.org?.login.toLowerCase() === org),
      EVENT_FEED_PAGE_LIMITS,
    );
  });

  serve<{ Params: { owner: string; repo: string } }>(app, "activity/list-repo-events", (request, reply) => {
    const name = `${request.params.owner}/${request.params.repo}`.toLowerCase();
    // The access hook has already refused callers who may not see a private repository.
    return answer(
      request,
      reply,
      feeds.feed((e) => fullName(e) === name),
      EVENT_FEED_PAGE_LIMITS,
    );
  });

  /** Feeds of one user: 404 for an unknown user; private events only when the caller is that user. */
  function userFeed(
    operationId: OperationId,
    select: (event: StoredEvent, login: string, own: boolean, principal: Principal, params: Record<string, string>) => boolean,
    options: { ownOnly?: boolean } = {},
  ) {
    serve<{ Params: Record<string, string> & { username: string } }>(app, operationId, (request, reply) => {
      const user = userNamed(request.params.username);
      if (!user) return sendError(reply, 404, "Not Found", { docs: DOCS });
      const own = isCaller(request.principal, user.login);
      if (options.ownOnly && !own) return sendError(reply, 404, "Not Found", { docs: DOCS });
      const login = user.login.toLowerCase();
      return answer(
        request,
        reply,
        feeds.feed((e) => select(e, login, own, request.principal, request.params)),
        EVENT_FEED_PAGE_LIMITS,
      );
    });
  }

  const byUser = (e: StoredEvent, login: string) => e.actor.login.toLowerCase() === login;
  const received = (e: StoredEvent, login: string) => ctx.state.notifications.isWatching(login, fullName(e)) && !byUser(e, login);

  userFeed(
    "activity/list-events-for-authenticated-user",
    (e, login, own, principal) => byUser(e, login) && (e.public || (own && canSee(principal, e))),
  );
  userFeed(
    "activity/list-org-events-for-authenticated-user",
    (e, _login, _own, principal, params) => e.org?.login.toLowerCase() === String(params.org).toLowerCase() && canSee(principal, e),
    { ownOnly: true },
  );
  userFeed("activity/list-public-events-for-user", (e, login) => byUser(e, login) && e.public);
  userFeed(
    "activity/list-received-events-for-user",
    (e, login, own, principal) => received(e, login) && (e.public || (own && canSee(principal, e))),
  );
  userFeed("activity/list-received-public-events-for-user", (e, login) => received(e, login) && e.public);
}

/** RFC 9110 13.1.2: If-None-Match uses weak comparison: the opaque tags match, with or without `W/`. */
export function weaklyMatches(ifNoneMatch: string, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim() === "*" || opaque(tag) === opaque(etag));
}

/** Payloads keep API paths in `url` and `*_url` fields; the answer gives them as URLs on the request's base. */
function withBase(base: string, value: unknown, key = ""): unknown {
  if (typeof value === "string") return (key === "url" || key.endsWith("_url")) && value.startsWith("/") ? `${base}${value}` : value;
  if (Array.isArray(value)) return value.map((item) => withBase(base, item));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withBase(base, v, k)]));
  return value;
}
