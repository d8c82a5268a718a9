// The types users write against: activity events and notification threads declared (src/model/), not inferred from
// zod with an index signature. An event narrows on `type` (its payload with it), an unknown event type still reaches
// the caller, and a name a type does not declare does not compile. Checked by `tsc -p test` (the suite's type-check);
// the runtime lines show the same values pass the client's parsing.
import { describe, expect, expectTypeOf, it } from "vitest";
import type {
  ActivityEvent,
  CreateEvent,
  NotificationThread,
  OtherActivityEvent,
  PushEvent,
  ResultOf,
  UnknownEventType,
  WatchEvent,
} from "@shiplog/client";
import { activityEventList, notificationThread } from "@shiplog/client/schemas";

const base = {
  id: "1",
  actor: { id: 1, login: "octo", url: "https://api/u/octo", avatar_url: "https://a/octo" },
  repo: { id: 2, name: "acme/web", url: "https://api/r/acme/web" },
  public: true,
  created_at: "2026-01-01T00:00:00Z",
};
const push = {
  ...base,
  type: "PushEvent",
  payload: { repository_id: 2, push_id: 3, ref: "refs/heads/main", head: "a".repeat(40), before: "b".repeat(40) },
};
const fork = { ...base, id: "2", type: "ForkEvent", payload: { forkee: { id: 9 } } };

/** What a caller writes: a switch on `type`, each branch with its payload. */
function describeEvent(event: ActivityEvent): string {
  switch (event.type) {
    case "PushEvent":
      expectTypeOf(event).toEqualTypeOf<PushEvent>();
      return `push ${event.payload.head}`;
    case "WatchEvent":
      expectTypeOf(event).toEqualTypeOf<WatchEvent>();
      return `watch ${event.payload.action}`;
    case "CreateEvent":
      expectTypeOf(event).toEqualTypeOf<CreateEvent>();
      return `create ${event.payload.ref_type}`;
    default:
      expectTypeOf(event).toEqualTypeOf<OtherActivityEvent>();
      return `other ${String(event.type)} ${Object.keys(event.payload).join(",")}`;
  }
}

describe("declared types", () => {
  it("narrow an activity event on its type, payload included; an unknown type reaches the caller as data", () => {
    const events: ActivityEvent[] = activityEventList.parse([push, fork]);
    const first = events[0]!;
    if (first.type === "PushEvent") expectTypeOf(first.payload.head).toEqualTypeOf<string>();
    expectTypeOf<OtherActivityEvent["type"]>().toEqualTypeOf<UnknownEventType>();
    expectTypeOf<OtherActivityEvent["type"]>().toExtend<string>();
    // @ts-expect-error: an event declares no such field (it used to compile through an index signature)
    first.nope;
    // @ts-expect-error: nor does a payload
    if (first.type === "PushEvent") first.payload.nope;
    expect(events.map(describeEvent)).toEqual([`push ${"a".repeat(40)}`, "other ForkEvent forkee"]);
  });

  it("declare a notification thread's fields and nothing else; its reason stays open", () => {
    const thread: NotificationThread = notificationThread.parse({
      id: "7",
      repository: { id: 2, name: "web", full_name: "acme/web", owner: { login: "acme", id: 1 }, private: false },
      subject: { title: "Fix", url: null, latest_comment_url: null, type: "Issue" },
      reason: "a_reason_from_a_newer_service",
      unread: true,
      updated_at: "2026-01-01T00:00:00Z",
      last_read_at: null,
      url: "https://api/notifications/threads/7",
      subscription_url: "https://api/notifications/threads/7/subscription",
    });
    // @ts-expect-error: a thread declares no such field
    thread.nope;
    // @ts-expect-error: nor does its subject
    thread.subject.nope;
    expectTypeOf(thread.reason).toExtend<string>();
    expect(thread.reason).toBe("a_reason_from_a_newer_service");
  });

  it("type call() from the declared operations", () => {
    expectTypeOf<ResultOf<"activity/list-public-events">>().toEqualTypeOf<ActivityEvent[]>();
    expectTypeOf<ResultOf<"activity/get-thread">>().toEqualTypeOf<NotificationThread>();
  });
});
