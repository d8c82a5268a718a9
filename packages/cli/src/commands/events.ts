import { Command, InvalidArgumentError, Option } from "commander";
import type { ActivityEvent, EventFeed } from "@shiplog/client";
import { orgScope, repositoryScope, type CommandScope } from "../connection.js";
import { renderTable, StreamColumns } from "../output.js";
import { withExamples, type CommandContext } from "../program.js";
import { printUntilStopped, pollerReporting } from "../tail.js";
import { countLine, limitOption } from "./common.js";

/** `kind[:args]` → the feed, e.g. `repo:acme/web`, `user-org:octo/acme`, `public`. */
const FEEDS: Record<string, (arg: string) => EventFeed | undefined> = {
  public: (a) => (a === "" ? { feed: "public" } : undefined),
  repo: (a) => pair(a, (owner, repo) => ({ feed: "repo", owner, repo })),
  network: (a) => pair(a, (owner, repo) => ({ feed: "network", owner, repo })),
  org: (a) => one(a, (org) => ({ feed: "org", org })),
  user: (a) => one(a, (username) => ({ feed: "user", username })),
  "user-public": (a) => one(a, (username) => ({ feed: "user_public", username })),
  "user-org": (a) => pair(a, (username, org) => ({ feed: "user_org", username, org })),
  received: (a) => one(a, (username) => ({ feed: "received", username })),
  "received-public": (a) => one(a, (username) => ({ feed: "received_public", username })),
};
const one = (a: string, make: (x: string) => EventFeed) => (/^[^/\s:]+$/.test(a) ? make(a) : undefined);
const pair = (a: string, make: (x: string, y: string) => EventFeed) => {
  const m = /^([^/\s:]+)\/([^/\s:]+)$/.exec(a);
  return m ? make(m[1]!, m[2]!) : undefined;
};
const FEED_FORMS =
  "public, repo:OWNER/REPO, network:OWNER/REPO, org:ORG, user:USER, user-public:USER, user-org:USER/ORG, received:USER, received-public:USER";

export function parseFeed(value: string): EventFeed {
  const colon = value.indexOf(":");
  const kind = colon === -1 ? value : value.slice(0, colon);
  const feed = FEEDS[kind]?.(colon === -1 ? "" : value.slice(colon + 1));
  if (!feed) throw new InvalidArgumentError(`expected one of ${FEED_FORMS}; got ${JSON.stringify(value)}`);
  return feed;
}

/** The organization a feed is in (where an App's installation is looked for), and what a 404 is about. */
function feedScope(feed: EventFeed): CommandScope {
  const { owner, repo, org, username } = feed as { owner?: string; repo?: string; org?: string; username?: string };
  if (owner !== undefined && repo !== undefined) return repositoryScope({ owner, repo });
  if (org !== undefined) return username === undefined ? orgScope(org) : { org, subject: `user ${username} or organization ${org}` };
  return username === undefined ? {} : { subject: `user ${username}` };
}

/** One line per event: when, type, who, where, and what. */
export function eventCells(event: ActivityEvent): string[] {
  const payload = (event as { payload?: Record<string, unknown> }).payload ?? {};
  const what =
    event.type === "PushEvent"
      ? `${String(payload.ref ?? "")} ${String(payload.head ?? "").slice(0, 12)}`
      : event.type === "CreateEvent"
        ? `${String(payload.ref_type ?? "")} ${String(payload.ref ?? "")}`
        : String(payload.action ?? "");
  return [event.created_at ?? "", event.type, event.actor.login, event.repo.name, what.trim()];
}

export function eventsCommand(ctx: CommandContext): Command {
  const events = withExamples(new Command("events").description("activity event feeds"), "shiplog events tail org:acme");
  events.addCommand(
    withExamples(
      new Command("tail")
        .description("follow a feed, printing each new event once, oldest first, until Ctrl-C")
        .argument("<feed>", FEED_FORMS, parseFeed)
        .addOption(new Option("--backlog", "first print what the feed holds now (up to 300 events)"))
        .action(async (feed: EventFeed, _options, command: Command) => {
          const options = ctx.options<{ backlog?: boolean }>(command);
          const client = ctx.client(command, feedScope(feed));
          const poller = client.activity.poll(feed, {
            start: options.backlog ? "backlog" : "now",
            signal: ctx.signal,
            ...pollerReporting(ctx),
          });
          // When (20), the type (IssueCommentEvent), the actor, the repository.
          const columns = new StreamColumns([20, 17, 10, 16]);
          const structured = ctx.itemFormat(command);
          await printUntilStopped(poller, ctx, (event) => (structured ? structured(event) : columns.line(eventCells(event))));
        }),
      "shiplog events tail repo:acme/web --backlog",
    ),
  );
  events.addCommand(
    withExamples(
      new Command("list")
        .description("print what a feed holds now, newest first, and stop (the service keeps up to 300 events, 30 days)")
        .argument("<feed>", FEED_FORMS, parseFeed)
        .option("--type <type>", "only events of this type (PushEvent, WatchEvent, ...)")
        .option("--actor <login>", "only events by this user")
        .addOption(limitOption("events"))
        .action(async (feed: EventFeed, _options, command: Command) => {
          const options = ctx.options<{ type?: string; actor?: string; limit: number }>(command);
          const client = ctx.client(command, feedScope(feed));
          const shown: ActivityEvent[] = [];
          let matching = 0;
          // Pages of 100 while more may be printed; past the limit, the rest is counted for the line on stderr.
          for await (const event of client.activity.listFeed(feed, { per_page: 100, signal: ctx.signal })) {
            if (options.type !== undefined && event.type !== options.type) continue;
            if (options.actor !== undefined && event.actor.login !== options.actor) continue;
            matching += 1;
            if (shown.length < options.limit) shown.push(event);
          }
          if (await ctx.printData(command, { data: shown, items: shown })) return;
          ctx.io.stdout(renderTable(["when", "type", "actor", "repository", "what"], shown.map(eventCells)));
          ctx.io.stderr(countLine(shown.length, matching, "event"));
        }),
      "shiplog events list org:acme --type PushEvent --limit 10",
    ),
  );
  return events;
}
