import { EmulatorUsageError } from "./emulator-usage-error.js";
import type { Clock } from "./clock.js";

/** A thread subscription's state (spec 3.2). `none`: never subscribed; `muted`: the subscription was deleted. */
export type SubscriptionState = "none" | "subscribed" | "ignored" | "muted";

/** How a notification reaches its recipient, which decides whether an ignore or mute lets it through. */
export type DeliveryTrigger = "activity" | "comment" | "mention";

export interface ThreadRepo {
  owner: string;
  ownerId: number;
  ownerType: "User" | "Organization";
  name: string;
  id: number;
  private: boolean;
}

export interface ThreadSubject {
  title: string;
  /** `Issue`, `PullRequest`, `Commit`, `Release`, ... */
  type: string;
  /** API path of the subject (`/repos/acme/web/issues/3`), or null. */
  path: string | null;
  latestCommentPath: string | null;
}

/** One user's thread about one subject. */
export interface StoredThread {
  id: number;
  /** The recipient's login, lower case. */
  user: string;
  /** Identifies the discussion across users, e.g. `acme/web#3`. */
  subjectKey: string;
  repo: ThreadRepo;
  subject: ThreadSubject;
  reason: string;
  unread: boolean;
  updatedAtMs: number;
  lastReadAtMs: number | null;
  /** Marked done: out of the inbox until new activity brings it back. */
  done: boolean;
  /** The user took part (commented, was mentioned, authored, subscribed manually). */
  participating: boolean;
  /** The reason later notifications of this thread carry, once the user has taken part. */
  participationReason: string | null;
  subscription: SubscriptionState;
  subscriptionCreatedAtMs: number | null;
  subscriptionReason: string | null;
}

export interface Delivery {
  user: string;
  subjectKey: string;
  repo: ThreadRepo;
  subject: ThreadSubject;
  /** The reason this notification carries; it replaces the thread's earlier one. */
  reason: string;
  trigger: DeliveryTrigger;
  /** Whether this makes the user a participant (which creates a subscription). */
  participates?: boolean;
}

export type DeliveryOutcome =
  | { delivered: true; thread: StoredThread }
  | { delivered: false; thread: StoredThread; blockedBy: "ignored" | "muted" };

/** A mark-as-read that goes on in the background (the service's 202). */
export interface MarkReadJob {
  remaining: number;
  done: Promise<void>;
}

/** Reasons that mean the user takes part in the thread (subscriptions are generated only then). */
const PARTICIPATING_REASONS = new Set([
  "author",
  "comment",
  "mention",
  "team_mention",
  "manual",
  "assign",
  "review_requested",
  "state_change",
]);

/**
 * Notification threads per user with the state machine of spec 3.2: unread/read, done, subscriptions
 * (subscribed, ignored, muted), the latest reason replacing the earlier one, a comment or mention ending an
 * ignore, and a per-user `Last-Modified` that moves on with every change of the inbox.
 */
export class NotificationStore {
  #threads: StoredThread[] = [];
  #nextId = 1;
  readonly #lastModified = new Map<string, number>();
  readonly #created: number;
  /** The running background jobs, by the function that stops each. */
  readonly #jobs = new Set<() => void>();
  /** Marking more than this many threads in one request goes to the background (202). */
  markReadThreshold = 100;
  /** Threads the background job marks per step, and the pause between steps (on the emulator's clock's waits). */
  backgroundBatch = 50;
  backgroundStepMs = 5;
  #pollIntervalSeconds = 60;
  /** Repository (`owner/name`, lower case) -> logins (lower case) of its watchers. */
  readonly #watchers = new Map<string, Set<string>>();

  constructor(private readonly clock: Clock) {
    this.#created = Math.floor(clock.now() / 1000) * 1000;
  }

  /** The user watches the repository: `subscribed` notifications of its threads, its events received. */
  watch(user: string, repo: string): void {
    const k = repo.toLowerCase();
    let set = this.#watchers.get(k);
    if (!set) {
      set = new Set();
      this.#watchers.set(k, set);
    }
    set.add(user.toLowerCase());
  }

  unwatch(user: string, repo: string): void {
    this.#watchers.get(repo.toLowerCase())?.delete(user.toLowerCase());
  }

  /** Logins (lower case) watching a repository. */
  watchersOf(repo: string): string[] {
    return [...(this.#watchers.get(repo.toLowerCase()) ?? [])];
  }

  /** Whether the user watches the repository. */
  isWatching(user: string, repo: string): boolean {
    return this.#watchers.get(repo.toLowerCase())?.has(user.toLowerCase()) ?? false;
  }

  /** The `X-Poll-Interval` of the notification listings, in seconds. Default 60. */
  get pollIntervalSeconds(): number {
    return this.#pollIntervalSeconds;
  }
  setPollInterval(seconds: number): void {
    if (!(seconds >= 0)) {
      throw new EmulatorUsageError("setPollInterval", {
        argument: "seconds",
        rule: "minimum 0",
        message: `must be a non-negative number of seconds (got ${seconds})`,
      });
    }
    this.#pollIntervalSeconds = seconds;
  }

  /** Delivers one notification to one user, applying ignores, mutes and the reason rule. */
  deliver(delivery: Delivery): DeliveryOutcome {
    const thread = this.#threadFor(delivery.user, delivery.subjectKey, delivery.repo, delivery.subject, delivery.reason);
    const endsIgnore = delivery.trigger === "comment" || delivery.trigger === "mention";
    if (thread.subscription === "ignored" && !endsIgnore) return { delivered: false, thread, blockedBy: "ignored" };
    let reason = delivery.reason;
    // Muted until a comment or mention; a watched repository still notifies (as `subscribed`).
    if (thread.subscription === "muted" && !endsIgnore) {
      if (!this.isWatching(thread.user, `${thread.repo.owner}/${thread.repo.name}`))
        return { delivered: false, thread, blockedBy: "muted" };
      reason = "subscribed";
    }
    const now = this.#now();
    if ((thread.subscription === "ignored" || thread.subscription === "muted") && endsIgnore) {
      this.#subscribe(thread, delivery.reason, now);
    }
    if (delivery.participates || PARTICIPATING_REASONS.has(reason)) this.#participate(thread, reason, now);
    thread.reason = reason;
    thread.subject = { ...delivery.subject };
    thread.unread = true;
    thread.done = false;
    thread.updatedAtMs = now;
    this.#touch(thread.user);
    return { delivered: true, thread };
  }

  /**
   * The user took part without being notified (they commented or opened the thread themselves): they become a
   * participant, and their own comment ends an ignore or a mute.
   */
  participate(user: string, subjectKey: string, repo: ThreadRepo, subject: ThreadSubject, reason: string): StoredThread {
    const thread = this.#threadFor(user, subjectKey, repo, subject, reason);
    const now = this.#now();
    if (thread.subscription === "ignored" || thread.subscription === "muted") this.#subscribe(thread, reason, now);
    this.#participate(thread, reason, now);
    this.#touch(thread.user);
    return thread;
  }

  /** The reason a notification to this user about this subject carries when nothing more specific applies. */
  standingReason(user: string, subjectKey: string): string | null {
    return this.#find(user, subjectKey)?.participationReason ?? null;
  }

  /** The user's threads in the inbox (not done), most recently updated first. */
  list(
    user: string,
    filter: { all?: boolean; participating?: boolean; sinceMs?: number; beforeMs?: number; repo?: { owner: string; name: string } } = {},
  ): StoredThread[] {
    const login = user.toLowerCase();
    return this.#threads
      .filter(
        (t) =>
          t.user === login &&
          !t.done &&
          (filter.all || t.unread) &&
          (!filter.participating || t.participating) &&
          (filter.sinceMs === undefined || t.updatedAtMs >= filter.sinceMs) &&
          (filter.beforeMs === undefined || t.updatedAtMs < filter.beforeMs) &&
          (!filter.repo ||
            (t.repo.owner.toLowerCase() === filter.repo.owner.toLowerCase() &&
              t.repo.name.toLowerCase() === filter.repo.name.toLowerCase())),
      )
      .sort((a, b) => b.updatedAtMs - a.updatedAtMs || b.id - a.id);
  }

  /** A thread of the user (done ones included), or undefined. */
  get(user: string, id: number): StoredThread | undefined {
    return this.#threads.find((t) => t.id === id && t.user === user.toLowerCase());
  }

  /** Every thread of every user (tests, demo). */
  all(): readonly StoredThread[] {
    return this.#threads;
  }

  /**
   * Marks the user's threads updated at or before `lastReadAtMs` read (or unread). Up to the threshold it is
   * done at once (205); past it a background job does it (202) and the job is returned.
   */
  markRead(
    user: string,
    options: { lastReadAtMs: number; read: boolean; repo?: { owner: string; name: string } },
  ): { background: MarkReadJob | undefined } {
    const targets = this.list(user, { all: true, repo: options.repo }).filter(
      (t) => t.updatedAtMs <= options.lastReadAtMs && t.unread === options.read,
    );
    const apply = (thread: StoredThread) => {
      // A thread updated since the request was made stays as it is.
      if (thread.updatedAtMs > options.lastReadAtMs || thread.done) return;
      thread.unread = !options.read;
      if (options.read) thread.lastReadAtMs = options.lastReadAtMs;
    };
    if (targets.length <= this.markReadThreshold) {
      targets.forEach(apply);
      if (targets.length > 0) this.#touch(user);
      return { background: undefined };
    }
    const queue = [...targets];
    const job: MarkReadJob = { remaining: queue.length, done: Promise.resolve() };
    job.done = new Promise((resolve) => {
      const stop = this.clock.every(this.backgroundStepMs, () => {
        for (const thread of queue.splice(0, this.backgroundBatch)) apply(thread);
        job.remaining = queue.length;
        this.#touch(user);
        if (queue.length > 0) return true;
        this.#jobs.delete(stop);
        resolve();
        return false;
      });
      this.#jobs.add(stop);
    });
    return { background: job };
  }

  /** Marks one thread read, as opening it does. */
  markThreadRead(thread: StoredThread): void {
    if (!thread.unread) return;
    thread.unread = false;
    thread.lastReadAtMs = this.#now();
    this.#touch(thread.user);
  }

  /** Marks one thread done: it leaves the inbox. */
  markThreadDone(thread: StoredThread): void {
    thread.done = true;
    thread.unread = false;
    this.#touch(thread.user);
  }

  /** PUT subscription: `ignored` true blocks the thread; false subscribes. */
  setSubscription(thread: StoredThread, ignored: boolean): void {
    const now = this.#now();
    if (thread.subscription === "none" || thread.subscription === "muted") {
      thread.subscriptionCreatedAtMs = now;
      thread.subscriptionReason = ignored ? null : "manual";
    }
    thread.subscription = ignored ? "ignored" : "subscribed";
    if (!ignored) thread.participating = true;
    this.#touch(thread.user);
  }

  /** DELETE subscription: muted until a comment or mention. */
  deleteSubscription(thread: StoredThread): void {
    thread.subscription = "muted";
    thread.subscriptionReason = null;
    this.#touch(thread.user);
  }

  /** The user's inbox `Last-Modified` (ms, whole seconds). */
  lastModifiedMs(user: string): number {
    return this.#lastModified.get(user.toLowerCase()) ?? this.#created;
  }

  /** Stops background jobs (on emulator stop). */
  stop(): void {
    for (const stop of this.#jobs) stop();
    this.#jobs.clear();
  }

  #find(user: string, subjectKey: string): StoredThread | undefined {
    const login = user.toLowerCase();
    return this.#threads.find((t) => t.user === login && t.subjectKey === subjectKey);
  }

  #threadFor(user: string, subjectKey: string, repo: ThreadRepo, subject: ThreadSubject, reason: string): StoredThread {
    const found = this.#find(user, subjectKey);
    if (found) return found;
    const thread: StoredThread = {
      id: this.#nextId++,
      user: user.toLowerCase(),
      subjectKey,
      repo: { ...repo },
      subject: { ...subject },
      reason,
      unread: false,
      updatedAtMs: this.#now(),
      lastReadAtMs: null,
      done: true,
      participating: false,
      participationReason: null,
      subscription: "none",
      subscriptionCreatedAtMs: null,
      subscriptionReason: null,
    };
    this.#threads.push(thread);
    return thread;
  }

  #participate(thread: StoredThread, reason: string, now: number): void {
    thread.participating = true;
    thread.participationReason = reason;
    // Subscriptions are generated only when the user participates.
    if (thread.subscription === "none") this.#subscribe(thread, reason, now);
  }

  #subscribe(thread: StoredThread, reason: string, now: number): void {
    if (thread.subscription === "none" || thread.subscriptionCreatedAtMs === null) thread.subscriptionCreatedAtMs = now;
    thread.subscription = "subscribed";
    thread.subscriptionReason = reason;
  }

  /** Now, to the whole second: the service shows times to the second, and compares them so. */
  #now(): number {
    return Math.floor(this.clock.now() / 1000) * 1000;
  }

  /** Moves the user's `Last-Modified` on by at least a second, so every change is a new HTTP-date. */
  #touch(user: string): void {
    const login = user.toLowerCase();
    const previous = this.lastModifiedMs(login);
    const now = Math.floor(this.clock.now() / 1000) * 1000;
    this.#lastModified.set(login, Math.max(now, previous + 1000));
  }
}
