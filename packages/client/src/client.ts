import { ActivityApi } from "./activity.js";
import { ArtifactMetadataApi } from "./artifact-metadata.js";
import { IssueEventsApi } from "./issue-events.js";
import { NotificationsApi } from "./notifications.js";
import { GitApi } from "./git.js";
import { SourceImportsApi } from "./source-imports.js";
import { Transport, type RouteRequest, type ServiceResponse, type TransportOptions } from "./transport.js";

export type ClientOptions = TransportOptions;

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

  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(options);
    this.notifications = new NotificationsApi(this.transport);
    this.activity = new ActivityApi(this.transport);
    this.issueEvents = new IssueEventsApi(this.transport);
    this.imports = new SourceImportsApi(this.transport);
    this.artifacts = new ArtifactMetadataApi(this.transport);
    this.git = new GitApi(this.transport);
  }

  /** Sends a request to any route, with the client's headers, retries and typed errors. */
  request<T = unknown>(request: RouteRequest): Promise<ServiceResponse<T>> {
    return this.transport.request<T>(request);
  }
}
