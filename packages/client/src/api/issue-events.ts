import { EndpointCaller } from "../endpoints/endpoint-call.js";
import type { CallOptions } from "../endpoints/call-options.js";
import type { PageOptions } from "../endpoints/call-options.js";
import { IssueEventPoller, type IssueEventPollOptions } from "../pollers/issue-event-poller.js";
import type { GetIssueEventParams, IssueEvent, IssueEventsRepoParams, ListIssueEventsForIssueParams } from "../model/issue-events.js";
import type { Transport } from "../transport/transport.js";

/** Events of issues and pull requests (spec 4.5, 6.3). */
export class IssueEventsApi {
  readonly #transport: Transport;
  readonly #calls: EndpointCaller;

  constructor(transport: Transport) {
    this.#transport = transport;
    this.#calls = new EndpointCaller(transport);
  }

  /** Iterates a repository's issue events, each with its `issue`; `per_page` at most 100. */
  listForRepo(params: IssueEventsRepoParams, options: PageOptions = {}): AsyncGenerator<IssueEvent, void, undefined> {
    return this.#calls.list("issues/list-events-for-repo", params, options);
  }

  /** One issue event. 410 (GoneError) when its issue was deleted. */
  get(params: GetIssueEventParams, options: CallOptions = {}): Promise<IssueEvent> {
    return this.#calls.call("issues/get-event", params, options);
  }

  /** Iterates the events of one issue or pull request, oldest first, with labels on (un)label events. */
  listForIssue(params: ListIssueEventsForIssueParams, options: PageOptions = {}): AsyncGenerator<IssueEvent, void, undefined> {
    return this.#calls.list("issues/list-events", params, options);
  }

  /**
   * Follows a repository's issue events: yields each new one once, oldest first, polling with `If-None-Match`.
   * Stop it with `options.signal`; resume it with `options.checkpoint` or `options.checkpointStore`.
   */
  poll(params: IssueEventsRepoParams, options: IssueEventPollOptions = {}): IssueEventPoller {
    return new IssueEventPoller(this.#transport, params, options);
  }
}
