// Which registry endpoint serves each of the nine activity feeds of spec 4.4, so a feed named by what it follows
// (`{ feed: "org", org: "acme" }`) becomes one operation and its parameters.
import type { ListOperationId } from "./registry.js";
import { parseRequest } from "../schemas/validation.js";
import { eventFeed, type EventFeed, type EventFeedKind } from "../schemas/activity.js";

/** The operation of each feed. */
export const FEED_OPERATIONS = {
  public: "activity/list-public-events",
  network: "activity/list-public-events-for-repo-network",
  org: "activity/list-public-org-events",
  repo: "activity/list-repo-events",
  user: "activity/list-events-for-authenticated-user",
  user_org: "activity/list-org-events-for-authenticated-user",
  user_public: "activity/list-public-events-for-user",
  received: "activity/list-received-events-for-user",
  received_public: "activity/list-received-public-events-for-user",
} as const satisfies Record<EventFeedKind, ListOperationId>;

/** A feed's operation and parameters; throws RequestValidationError for a feed that breaks a rule. */
export function feedCall(feed: EventFeed): { id: (typeof FEED_OPERATIONS)[EventFeedKind]; params: Record<string, string> } {
  const { feed: kind, ...params } = parseRequest(eventFeed, feed, "event feed");
  return { id: FEED_OPERATIONS[kind], params };
}
