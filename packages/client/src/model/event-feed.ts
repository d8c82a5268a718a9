/** One of the nine feeds of spec 4.4, named by what it follows: `{ feed: "org", org: "acme" }`. */
export type EventFeed =
  | { feed: "public" }
  | { feed: "network"; owner: string; repo: string }
  | { feed: "org"; org: string }
  | { feed: "repo"; owner: string; repo: string }
  | { feed: "user"; username: string }
  | { feed: "user_org"; username: string; org: string }
  | { feed: "user_public"; username: string }
  | { feed: "received"; username: string }
  | { feed: "received_public"; username: string };

/** What a feed follows. */
export type EventFeedKind = EventFeed["feed"];
