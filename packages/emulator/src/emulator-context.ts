import type { AccessControl, AccessRule, Principal } from "./access-control.js";
import type { ArtifactStore } from "./artifact-store.js";
import type { Clock } from "./clock.js";
import type { EventFeeds } from "./event-feeds.js";
import type { Fixture } from "./fixture.js";
import type { IssueEventStore } from "./issue-event-store.js";
import type { NotificationStore } from "./notification-store.js";
import type { GitStore } from "./git-store.js";
import type { SourceImportStore } from "./import-store.js";

/** The emulator's state, one store per area of the spec. */
export interface EmulatorState {
  artifacts: ArtifactStore;
  /** Git objects and references per repository (spec 4.2). */
  git: GitStore;
  /** Source imports and the simulated importer (spec 4.4b, 3.1). */
  imports: SourceImportStore;
  /** Activity events behind every feed (spec 2.7, 6.1). */
  events: EventFeeds;
  /** Notification threads per user, watchers, subscriptions (spec 2.5, 3.2). */
  notifications: NotificationStore;
  /** Issues and their events (spec 2.8, 6.3). */
  issueEvents: IssueEventStore;
}

/** What every route module is given. */
export interface EmulatorContext {
  fixture: Fixture;
  access: AccessControl;
  clock: Clock;
  state: EmulatorState;
}

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal;
    apiVersion: string;
    /** The access rule the permission matrix gives this request. */
    accessRule: AccessRule | undefined;
    /** A `drop_after` fault hit this request: the connection is destroyed once the handler has run. */
    dropAfterHandler: boolean;
  }
}
