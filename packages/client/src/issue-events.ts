import type { CallOptions } from "./artifact-metadata.js";
import { checkPageOptions, paginateItems, type PageOptions } from "./pagination.js";
import { parseRequest, parseResponse } from "./schema-validation.js";
import {
  ISSUE_EVENTS_PAGE_LIMITS,
  getIssueEventParams,
  issueEvent,
  issueEventList,
  listIssueEventsForIssueParams,
  issueEventsRepoParams,
  type GetIssueEventParams,
  type IssueEvent,
  type ListIssueEventsForIssueParams,
  type IssueEventsRepoParams,
} from "./schemas/issue-events.js";
import type { Transport } from "./transport.js";
import { IssueEventPoller, type IssueEventPollOptions } from "./pollers/issue-event-poller.js";

export const ISSUE_EVENT_ROUTES = {
  repo: "/repos/{owner}/{repo}/issues/events",
  single: "/repos/{owner}/{repo}/issues/events/{event_id}",
  issue: "/repos/{owner}/{repo}/issues/{issue_number}/events",
} as const;

/** Events of issues and pull requests (spec 4.5, 6.3). */
export class IssueEventsApi {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Iterates a repository's issue events, each with its `issue`; `per_page` at most 100. */
  listForRepo(params: IssueEventsRepoParams, options: PageOptions = {}): AsyncGenerator<IssueEvent, void, undefined> {
    const operation = `GET ${ISSUE_EVENT_ROUTES.repo}`;
    const { owner, repo } = parseRequest(issueEventsRepoParams, params, operation);
    checkPageOptions(operation, options, ISSUE_EVENTS_PAGE_LIMITS);
    return paginateItems(this.#transport, { method: "GET", route: ISSUE_EVENT_ROUTES.repo, params: { owner, repo } }, options, ISSUE_EVENTS_PAGE_LIMITS, (body) =>
      parseResponse(issueEventList, body, operation),
    );
  }

  /** One issue event. 410 (GoneError) when its issue was deleted. */
  async get(params: GetIssueEventParams, options: CallOptions = {}): Promise<IssueEvent> {
    const operation = `GET ${ISSUE_EVENT_ROUTES.single}`;
    const { owner, repo, event_id } = parseRequest(getIssueEventParams, params, operation);
    const response = await this.#transport.request({ method: "GET", route: ISSUE_EVENT_ROUTES.single, params: { owner, repo, event_id }, signal: options.signal });
    return parseResponse(issueEvent, response.data, operation);
  }

  /** Iterates the events of one issue or pull request, oldest first, with labels on (un)label events. */
  listForIssue(params: ListIssueEventsForIssueParams, options: PageOptions = {}): AsyncGenerator<IssueEvent, void, undefined> {
    const operation = `GET ${ISSUE_EVENT_ROUTES.issue}`;
    const { owner, repo, issue_number } = parseRequest(listIssueEventsForIssueParams, params, operation);
    checkPageOptions(operation, options, ISSUE_EVENTS_PAGE_LIMITS);
    return paginateItems(
      this.#transport,
      { method: "GET", route: ISSUE_EVENT_ROUTES.issue, params: { owner, repo, issue_number } },
      options,
      ISSUE_EVENTS_PAGE_LIMITS,
      (body) => parseResponse(issueEventList, body, operation),
    );
  }

  /**
   * Follows a repository's issue events: yields each new one once, oldest first, polling with `If-None-Match`.
   * Stop it with `options.signal`; resume it with `options.checkpoint` or `options.checkpointStore`.
   */
  poll(params: IssueEventsRepoParams, options: IssueEventPollOptions = {}): IssueEventPoller {
    return new IssueEventPoller(this.#transport, params, options);
  }
}
