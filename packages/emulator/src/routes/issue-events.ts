import type { FastifyInstance, FastifyReply } from "fastify";
import type { EmulatorContext } from "../emulator-context.js";
import type { StoredIssue, StoredIssueEvent } from "../issue-event-store.js";
import { baseUrlOf, webBase } from "../base-url.js";
import { issueObjectView, nodeId, userView, type UserRef } from "../resource-views.js";
import { sendError } from "../service-errors.js";
import { notModifiedSince, sendConditionally } from "./conditional-get.js";
import { pageOf, readPage, type ListLimits } from "./list-paging.js";
import { serve } from "./route-table.js";

const DOCS = "/issues/events";
/** Section 8: issue event lists page by 100 at most; the default is the service's usual 30. */
const ISSUE_EVENTS_PAGE_LIMITS: ListLimits = { defaultPerPage: 30, maxPerPage: 100 };

/** The app the fixture's bot user stands for, as `performed_via_service_app` shows it. */
const APP = {
  id: 1_001_001,
  slug: "shiplog-app",
  name: "shiplog-app",
  description: "Tracks where artifacts are stored and running",
  createdAtMs: Date.UTC(2025, 0, 15),
};

/** Issue events (spec 4.5, 6.3): the repository list, one event (404, 410), the events of one issue. */
export function registerIssueEventRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  const store = ctx.state.issueEvents;
  const ts = (ms: number) => ctx.clock.timestamp(ms);

  function userRef(login: string): UserRef {
    const user = ctx.fixture.users.find((u) => u.login.toLowerCase() === login.toLowerCase());
    return { login: user?.login ?? login, id: user?.id ?? 0, type: user?.type ?? "User" };
  }

  function appView(base: string, owner: string) {
    const org = ctx.access.findOrg(owner);
    const timestamp = ts(APP.createdAtMs);
    return {
      id: APP.id,
      slug: APP.slug,
      node_id: nodeId("App", APP.id),
      owner: userView(base, { login: org?.login ?? owner, id: org?.id ?? 0, type: "Organization" }),
      name: APP.name,
      description: APP.description,
      external_url: `${webBase(base)}/apps/${APP.slug}`,
      html_url: `${webBase(base)}/apps/${APP.slug}`,
      created_at: timestamp,
      updated_at: timestamp,
      permissions: { issues: "write", metadata: "read" },
      events: ["issues", "issue_comment"],
    };
  }

  const issueView = (base: string, issue: StoredIssue) => issueObjectView(base, issue, userRef, ts);

  /** One event; `withIssue` on the repository list and the single read, the kind's own fields on the per-issue list. */
  function eventView(base: string, event: StoredIssueEvent, withIssue: boolean) {
    const repoUrl = `${base}/repos/${event.owner}/${event.repo}`;
    const issue = store.issue(event.owner, event.repo, event.issueNumber);
    return {
      id: event.id,
      node_id: nodeId("IssueEvent", event.id),
      url: `${repoUrl}/issues/events/${event.id}`,
      actor: userView(base, userRef(event.actor)),
      event: event.event,
      commit_id: event.commitId,
      commit_url: event.commitId === null ? null : `${repoUrl}/commits/${event.commitId}`,
      created_at: ts(event.createdAtMs),
      performed_via_service_app: event.viaApp ? appView(base, event.owner) : null,
      ...(!withIssue && event.label ? { label: event.label } : {}),
      ...(!withIssue && event.assignee
        ? { assignee: userView(base, userRef(event.assignee)), assigner: userView(base, userRef(event.actor)) }
        : {}),
      ...(withIssue && issue ? { issue: issueView(base, issue) } : {}),
    };
  }

  const gone = (reply: FastifyReply) => sendError(reply, 410, "This issue was deleted", { docs: DOCS });
  const repoName = (owner: string, repo: string) => ({
    owner: ctx.access.findOrg(owner)!.login,
    repo: ctx.access.findRepo(owner, repo)!.name,
  });

  serve<{ Params: { owner: string; repo: string }; Querystring: Record<string, string> }>(
    app,
    "issues/list-events-for-repo",
    (request, reply) => {
      const paging = readPage(request.query, ISSUE_EVENTS_PAGE_LIMITS);
      if (!paging.ok) {
        return sendError(reply, 422, "Validation Failed", {
          docs: DOCS,
          errors: [
            {
              resource: "IssueEvent",
              field: paging.field,
              code: "invalid",
              message: `${paging.field} must be a positive integer (got ${paging.value})`,
            },
          ],
        });
      }
      const { owner, repo } = repoName(request.params.owner, request.params.repo);
      const events = store.repoEvents(owner, repo).filter((e) => !store.issue(owner, repo, e.issueNumber)?.deleted);
      const base = baseUrlOf(request);
      const page = pageOf(events, paging.page, paging.perPage, request, reply, base);
      // Conditional reads as on every list of the service: an unchanged page answers 304, free of rate limit.
      const pages = Math.ceil(events.length / paging.perPage);
      if (
        notModifiedSince(
          request,
          reply,
          `${page.map((e) => `${e.id}@${store.issue(owner, repo, e.issueNumber)?.updatedAtMs}`).join(",")}|${paging.page}|${paging.perPage}|${pages}`,
        )
      ) {
        reply.removeHeader("link");
        return reply.code(304).send();
      }
      return reply.send(page.map((e) => eventView(base, e, true)));
    },
  );

  serve<{ Params: { owner: string; repo: string; event_id: string } }>(app, "issues/get-event", (request, reply) => {
    const { owner, repo } = repoName(request.params.owner, request.params.repo);
    const id = /^\d+$/.test(request.params.event_id) ? Number(request.params.event_id) : NaN;
    const event = Number.isNaN(id) ? undefined : store.event(owner, repo, id);
    if (!event) return sendError(reply, 404, "Not Found", { docs: DOCS });
    if (store.issue(owner, repo, event.issueNumber)?.deleted) return gone(reply);
    return sendConditionally(request, reply, eventView(baseUrlOf(request), event, true));
  });

  serve<{ Params: { owner: string; repo: string; issue_number: string }; Querystring: Record<string, string> }>(
    app,
    "issues/list-events",
    (request, reply) => {
      const { owner, repo } = repoName(request.params.owner, request.params.repo);
      const number = /^\d+$/.test(request.params.issue_number) ? Number(request.params.issue_number) : NaN;
      const issue = Number.isNaN(number) ? undefined : store.issue(owner, repo, number);
      if (!issue) return sendError(reply, 404, "Not Found", { docs: DOCS });
      if (issue.deleted) return gone(reply);
      const paging = readPage(request.query, ISSUE_EVENTS_PAGE_LIMITS);
      const { page, perPage } = paging.ok ? paging : { page: 1, perPage: ISSUE_EVENTS_PAGE_LIMITS.defaultPerPage };
      const base = baseUrlOf(request);
      const events = store.issueEvents(owner, repo, number);
      return reply.send(pageOf(events, page, perPage, request, reply, base).map((e) => eventView(base, e, false)));
    },
  );
}
