import { ActivityApi } from "./api/activity.js";
import { ArtifactMetadataApi } from "./api/artifact-metadata.js";
import { EndpointCaller } from "./endpoints/endpoint-call.js";
import type { CallOptions } from "./endpoints/call-options.js";
import { clientOptionsFromEnv, type Environment } from "./environment.js";
import type { ItemOf, ListOperationId, OperationId, ParamsOf, ResultOf } from "./model/operation-types.js";
import { GitApi } from "./api/git.js";
import { IssueEventsApi } from "./api/issue-events.js";
import { NotificationsApi } from "./api/notifications.js";
import type { PageOptions } from "./endpoints/call-options.js";
import type { RouteRequest, ServiceResponse } from "./transport/route-request.js";
import { SourceImportsApi } from "./api/source-imports.js";
import { Transport } from "./transport/transport.js";
import { declaredTokenGuard } from "./access/declared-token-guard.js";
import type { ClientOptions } from "./client-options.js";
import { CLIENT_VERSION } from "./version.js";

export type { ClientOptions } from "./client-options.js";

/** The typed client for every endpoint shiplog covers, grouped by area as the spec groups them. */
export class ShiplogClient {
  readonly transport: Transport;
  /** Deployment and storage records (spec 4.1). */
  readonly artifacts: ArtifactMetadataApi;
  /** Git tag objects and references (spec 4.2). */
  readonly git: GitApi;
  /** Source imports, retired 2024-04-12 (spec 4.4b). */
  readonly imports: SourceImportsApi;

  /** Notification threads, read/done marking, subscriptions and the inbox poller (spec 4.3). */
  readonly notifications: NotificationsApi;
  /** Activity event feeds and their poller (spec 4.4, 6.1). */
  readonly activity: ActivityApi;
  /** Issue and pull request events (spec 4.5). */
  readonly issueEvents: IssueEventsApi;
  readonly #calls: EndpointCaller;

  constructor(options: ClientOptions = {}) {
    // The guard goes after the caller's plugins, so it sees what they did; before the transport's auth and throttle.
    const { tokenInfo, ...transportOptions } = options;
    const plugins = [...(options.plugins ?? []), declaredTokenGuard(tokenInfo)];
    this.transport = new Transport({ ...transportOptions, plugins }, `shiplog-client/${CLIENT_VERSION}`);
    this.#calls = new EndpointCaller(this.transport);
    this.notifications = new NotificationsApi(this.transport);
    this.activity = new ActivityApi(this.transport);
    this.issueEvents = new IssueEventsApi(this.transport);
    this.imports = new SourceImportsApi(this.transport);
    this.artifacts = new ArtifactMetadataApi(this.transport);
    this.git = new GitApi(this.transport);
  }

  /**
   * A client set up from the environment, read when called and only from `env`: `SHIPLOG_API_URL`, and
   * `SHIPLOG_TOKEN` (or `SHIPLOG_TOKEN_FILE`) or an App's `SHIPLOG_APP_ID`, `SHIPLOG_APP_PRIVATE_KEY_FILE` and
   * `SHIPLOG_APP_INSTALLATION_ID` (else `SHIPLOG_ORG`), the variables the CLI and the controller read. `options` win
   * over the variables. A mistake is a `RequestValidationError` naming the variable.
   */
  static fromEnv(env: Environment = process.env, options: ClientOptions = {}): ShiplogClient {
    return new ShiplogClient(clientOptionsFromEnv(env, options));
  }

  /**
   * Calls any endpoint of the registry by its operation id, typed from its entry: `call("git/get-ref",
   * { owner, repo, ref: "tags/v1" })`. Parameters are checked before sending, the answer against its schema.
   */
  call<K extends OperationId>(operationId: K, params: ParamsOf<K>, options: CallOptions = {}): Promise<ResultOf<K>> {
    // The declared operations are printed from the registry's schemas (scripts/generate-model.mjs): the same types.
    return this.#calls.call(operationId, params as never, options) as Promise<ResultOf<K>>;
  }

  /** Iterates every item of a list endpoint by its operation id, following the pages (`per_page` checked). */
  paginate<K extends ListOperationId>(
    operationId: K,
    params: ParamsOf<K>,
    options: PageOptions = {},
  ): AsyncGenerator<ItemOf<K>, void, undefined> {
    return this.#calls.list(operationId, params as never, options) as AsyncGenerator<ItemOf<K>, void, undefined>;
  }

  /** Sends a request to any route, with the client's headers, retries and typed errors. */
  request<T = unknown>(request: RouteRequest): Promise<ServiceResponse<T>> {
    return this.transport.request<T>(request);
  }
}
