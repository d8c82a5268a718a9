import type { ShiplogClient } from "@shiplog/client";

export interface TailActivityOptions {
  /** Client for the feed (any token that may read the organization's events). */
  feedClient: ShiplogClient;
  /** Client with a personal access token (classic) for the inbox; leave out to tail events only. */
  notificationsClient?: ShiplogClient;
  org: string;
  signal: AbortSignal;
  /** Where lines go. Default console.log. */
  print?: (line: string) => void;
}

/**
 * Tails an organization's events and the notification inbox side by side until the signal aborts, printing one
 * line per new event or thread update. Resolves with how many of each it printed. For a quick demo, lower the
 * emulator's intervals first: `emulator.state.events.setPollInterval(1)`, `emulator.state.notifications.setPollInterval(1)`.
 */
export async function tailActivity(options: TailActivityOptions): Promise<{ events: number; threads: number }> {
  const print = options.print ?? ((line: string) => console.log(line));
  const counts = { events: 0, threads: 0 };
  const report = (what: string) => (error: unknown) => print(`[tail] ${what} stopped: ${(error as Error).message}`);

  const events = (async () => {
    for await (const event of options.feedClient.activity.poll(
      { feed: "org", org: options.org },
      { signal: options.signal, start: "now" },
    )) {
      counts.events++;
      print(`[event] ${event.created_at} ${event.actor.login} ${event.type} ${event.repo.name}`);
    }
  })().catch(report("event tail"));

  const threads = options.notificationsClient
    ? (async () => {
        for await (const thread of options.notificationsClient!.notifications.poll({ signal: options.signal, start: "now" })) {
          counts.threads++;
          print(`[inbox] ${thread.updated_at} ${thread.reason} ${thread.repository.full_name}: ${thread.subject.title}`);
        }
      })().catch(report("inbox tail"))
    : Promise.resolve();

  await Promise.all([events, threads]);
  return counts;
}
