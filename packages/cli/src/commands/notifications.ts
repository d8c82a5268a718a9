import { Command, Option } from "commander";
import type { NotificationThread } from "@shiplog/client";
import { ownerRepo, positiveInteger } from "../arguments.js";
import { UsageError } from "../cli-errors.js";
import { repositoryScope } from "../connection.js";
import { renderTable, StreamColumns } from "../output.js";
import { withExamples, type CommandContext } from "../program.js";
import { pollerReporting, printUntilStopped } from "../tail.js";
import { countLine, limitOption } from "./common.js";

const threadRow = (t: NotificationThread) => [
  t.id,
  t.unread ? "yes" : "no",
  t.reason,
  t.repository.full_name,
  t.subject.type,
  t.subject.title,
  t.updated_at,
];
const HEAD = ["id", "unread", "reason", "repository", "type", "title", "updated"];
/** A tail's line of a thread: when, which, read or not, why, where, and what. */
const threadCells = (t: NotificationThread) => [
  t.updated_at,
  t.id,
  t.unread ? "unread" : "read",
  t.reason,
  t.repository.full_name,
  `${t.subject.type}: ${t.subject.title}`,
];

export function notificationsCommand(ctx: CommandContext): Command {
  const notifications = withExamples(
    new Command("notifications").description("the notification inbox (classic token with notifications or repo)"),
    "shiplog notifications list",
  );

  notifications.addCommand(
    withExamples(
      new Command("list")
        .description("list notification threads (unread ones unless --all)")
        .option("--all", "include read threads")
        .option("--participating", "only threads you participate in")
        .option("--repo <owner/repo>", "only one repository's threads", ownerRepo)
        .option("--reason <reason>", "only threads notified for this reason (mention, review_requested, ...)")
        .addOption(limitOption("threads"))
        .action(async (_options, command: Command) => {
          const options = ctx.options<{
            all?: boolean;
            participating?: boolean;
            repo?: { owner: string; repo: string };
            reason?: string;
            limit: number;
          }>(command);
          const api = ctx.client(command, options.repo && repositoryScope(options.repo)).notifications;
          const filters = { ...(options.all && { all: true }), ...(options.participating && { participating: true }) };
          const listing = options.repo
            ? api.listForRepo({ ...options.repo, ...filters }, { signal: ctx.signal })
            : api.list(filters, { signal: ctx.signal });
          const threads: NotificationThread[] = [];
          let matching = 0;
          for await (const thread of listing) {
            if (options.reason !== undefined && thread.reason !== options.reason) continue;
            matching += 1;
            if (threads.length < options.limit) threads.push(thread);
          }
          if (await ctx.printData(command, { data: threads, items: threads })) return;
          ctx.io.stdout(renderTable(HEAD, threads.map(threadRow)));
          ctx.io.stderr(countLine(threads.length, matching, `${options.all ? "" : "unread "}notification thread`));
        }),
      "shiplog notifications list --all --repo acme/web",
    ),
  );

  notifications.addCommand(
    withExamples(
      new Command("read")
        .description("mark one thread read, or every thread (--all) and wait until the service has done it")
        .argument("[thread-id]", "the thread to mark read", positiveInteger)
        .option("--all", "mark every thread read")
        .option("--repo <owner/repo>", "with --all: only one repository's threads", ownerRepo)
        .action(async (threadId: number | undefined, _options, command: Command) => {
          const options = ctx.options<{ all?: boolean; repo?: { owner: string; repo: string } }>(command);
          if ((threadId === undefined) === !options.all) throw new UsageError("give a thread id or --all (not both)");
          if (options.repo && !options.all) throw new UsageError("--repo goes with --all");
          const scope = threadId !== undefined ? { subject: `thread ${threadId}` } : options.repo && repositoryScope(options.repo);
          const api = ctx.client(command, scope).notifications;
          if (threadId !== undefined) {
            await api.markThreadAsRead({ thread_id: threadId }, { signal: ctx.signal });
            if (await ctx.printData(command, { data: { thread_id: String(threadId), read: true } })) return;
            return ctx.io.stdout(`thread ${threadId} marked read\n`);
          }
          const result = await api.markAllAsReadAndWait({ ...options.repo }, { signal: ctx.signal });
          if (await ctx.printData(command, { data: result })) return;
          const whose = options.repo ? `${options.repo.owner}/${options.repo.repo}'s` : "all";
          const checks = `${result.checks} check${result.checks === 1 ? "" : "s"}`;
          const background = result.background ? ` (in the background; done after ${checks})` : "";
          ctx.io.stdout(`${whose} notifications marked read${background}\n`);
        }),
      "shiplog notifications read 42",
      "shiplog notifications read --all --repo acme/web",
    ),
  );

  notifications.addCommand(
    withExamples(
      new Command("tail")
        .description("follow the inbox, printing each new or updated thread once, until Ctrl-C")
        .option("--backlog", "first print the threads the inbox holds now")
        .option("--all", "include read threads")
        .option("--participating", "only threads you participate in")
        .option("--repo <owner/repo>", "only one repository's threads", ownerRepo)
        .addOption(
          new Option("--min-interval <seconds>", "poll no more often than this, whatever the service allows").argParser(positiveInteger),
        )
        .action(async (_options, command: Command) => {
          const options = ctx.options<{
            backlog?: boolean;
            all?: boolean;
            participating?: boolean;
            repo?: { owner: string; repo: string };
            minInterval?: number;
          }>(command);
          const poller = ctx.client(command, options.repo && repositoryScope(options.repo)).notifications.poll({
            start: options.backlog ? "backlog" : "now",
            signal: ctx.signal,
            ...(options.all && { all: true }),
            ...(options.participating && { participating: true }),
            ...(options.repo && { repository: options.repo }),
            ...(options.minInterval && { minIntervalSeconds: options.minInterval }),
            ...pollerReporting(ctx),
          });
          // When, the thread id, unread, the reason (review_requested), the repository.
          const columns = new StreamColumns([20, 4, 6, 16, 16]);
          const structured = ctx.itemFormat(command);
          await printUntilStopped(poller, ctx, (t) => (structured ? structured(t) : columns.line(threadCells(t))));
        }),
      "shiplog notifications tail --participating",
    ),
  );

  notifications.addCommand(
    withExamples(
      new Command("done")
        .description("mark a thread done: it leaves the inbox until it is updated again")
        .argument("<thread-id>", "the thread", positiveInteger)
        .action(async (threadId: number, _options, command: Command) => {
          const api = ctx.client(command, { subject: `thread ${threadId}` }).notifications;
          await api.markThreadAsDone({ thread_id: threadId }, { signal: ctx.signal });
          if (await ctx.printData(command, { data: { thread_id: String(threadId), done: true } })) return;
          ctx.io.stdout(`thread ${threadId} marked done\n`);
        }),
      "shiplog notifications done 42",
    ),
  );

  notifications.addCommand(
    withExamples(
      new Command("subscribe")
        .description("subscribe to a thread (notified of its updates), or --ignore it (never notified)")
        .argument("<thread-id>", "the thread", positiveInteger)
        .option("--ignore", "ignore the thread instead: no notifications of it at all")
        .action(async (threadId: number, _options, command: Command) => {
          const options = ctx.options<{ ignore?: boolean }>(command);
          const api = ctx.client(command, { subject: `thread ${threadId}` }).notifications;
          const subscription = await api.setThreadSubscription({ thread_id: threadId, ignored: !!options.ignore }, { signal: ctx.signal });
          if (await ctx.printData(command, { data: subscription })) return;
          ctx.io.stdout(`thread ${threadId} ${subscription.ignored ? "ignored" : "subscribed"}\n`);
        }),
      "shiplog notifications subscribe 42",
      "shiplog notifications subscribe 42 --ignore",
    ),
  );

  notifications.addCommand(
    withExamples(
      new Command("unsubscribe")
        .description("remove your subscription to a thread (you are notified again only when you take part)")
        .argument("<thread-id>", "the thread", positiveInteger)
        .action(async (threadId: number, _options, command: Command) => {
          const api = ctx.client(command, { subject: `thread ${threadId}` }).notifications;
          await api.deleteThreadSubscription({ thread_id: threadId }, { signal: ctx.signal });
          if (await ctx.printData(command, { data: { thread_id: String(threadId), subscribed: false } })) return;
          ctx.io.stdout(`thread ${threadId} unsubscribed\n`);
        }),
      "shiplog notifications unsubscribe 42",
    ),
  );
  return notifications;
}
