import { afterAll, beforeAll, expect, it } from "vitest";
import { NOTIFICATION_REASONS } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

// Every notification reason of spec 2.5 is reachable through the activity generator, and each thread is read
// here over HTTP as a client would, with octo's classic token.
let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator();
});
afterAll(() => emu.stop());

async function inbox(): Promise<{ reason: string; subject: { title: string; type: string; url: string | null } }[]> {
  const response = await fetch(`${emu.url}/notifications?all=true&per_page=50`, {
    headers: { authorization: `Bearer ${emu.tokens.classic}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

it("reaches every reason of spec 2.5, each on the thread the activity concerns", async () => {
  const repo = "acme/web" as const;
  const reasons = new Map<string, string>();
  const latest = async (what: string) => {
    const threads = await inbox();
    const thread = threads[0]!;
    reasons.set(thread.reason, `${thread.subject.type}: ${thread.subject.title} (${what})`);
    return thread;
  };

  const authored = emu.activity.openIssue({ actor: "octo", repo, title: "Octo's issue" }).number;
  emu.activity.comment({ actor: "hubot", repo, issue: authored });
  expect((await latest("author")).reason).toBe("author");
  const other = emu.activity.openIssue({ actor: "hubot", repo, title: "Hubot's issue" }).number;
  emu.activity.subscribe({ user: "octo", repo, issue: other });
  emu.activity.comment({ actor: "hubot", repo, issue: other });
  expect((await latest("manual")).reason).toBe("manual");
  emu.activity.comment({ actor: "octo", repo, issue: other });
  emu.activity.comment({ actor: "hubot", repo, issue: other });
  expect((await latest("comment")).reason).toBe("comment");
  emu.activity.mention({ actor: "hubot", repo, issue: other, user: "octo" });
  expect((await latest("mention")).reason).toBe("mention");
  const teamIssue = emu.activity.openIssue({ actor: "hubot", repo, title: "Team question" }).number;
  emu.activity.mentionTeam({ actor: "hubot", repo, issue: teamIssue, team: "platform", members: ["octo"] });
  expect((await latest("team_mention")).reason).toBe("team_mention");
  const assigned = emu.activity.openIssue({ actor: "hubot", repo, title: "Assigned" }).number;
  emu.activity.assign({ actor: "hubot", repo, issue: assigned, assignee: "octo" });
  expect((await latest("assign")).reason).toBe("assign");
  const pull = emu.activity.openIssue({ actor: "hubot", repo, title: "Bump base image", pullRequest: true }).number;
  emu.activity.requestReview({ actor: "hubot", repo, pull, reviewer: "octo" });
  const review = await latest("review_requested");
  expect([review.reason, review.subject.type]).toEqual(["review_requested", "PullRequest"]);
  const closing = emu.activity.openIssue({ actor: "hubot", repo, title: "Closed by octo" }).number;
  emu.activity.closeIssue({ actor: "octo", repo, issue: closing });
  emu.activity.reopenIssue({ actor: "hubot", repo, issue: closing });
  expect((await latest("state_change")).reason).toBe("state_change");
  emu.activity.completeWorkflowRun({ actor: "octo", repo, workflow: "Build", conclusion: "failure" });
  const ci = await latest("ci_activity");
  expect([ci.reason, ci.subject.type, ci.subject.url]).toEqual(["ci_activity", "CheckSuite", null]);
  emu.activity.requestDeploymentApproval({ actor: "hubot", repo, environment: "production", reviewers: ["octo"] });
  expect((await latest("approval_requested")).subject.type).toBe("WorkflowRun");
  emu.activity.acceptInvitation({ actor: "hubot", repo, invitee: "octo" });
  expect((await latest("invitation")).reason).toBe("invitation");
  emu.activity.requestMemberFeature({ actor: "hubot", repo, feature: "Copilot", owners: ["octo"] });
  expect((await latest("member_feature_requested")).reason).toBe("member_feature_requested");
  emu.activity.watch({ user: "octo", repo: "acme/api" });
  emu.activity.openIssue({ actor: "hubot", repo: "acme/api", title: "Watched repository" });
  expect((await latest("subscribed")).reason).toBe("subscribed");

  expect([...reasons.keys()].sort()).toEqual([...NOTIFICATION_REASONS].sort());
  // The generator refuses a review request on an issue, naming the argument.
  expect(() => emu.activity.requestReview({ actor: "hubot", repo, pull: other, reviewer: "octo" })).toThrow(/pull .*not a pull request/);
});

it("the latency mode is seeded: the same seed makes the same events late; a bad setting names the argument", () => {
  const ids = Array.from({ length: 200 }, () => emu.activity.star({ actor: "octo", repo: "acme/web" }));
  emu.state.events.setLatency({ fraction: 0.25, seed: 7 });
  const late = ids.filter((e) => emu.state.events.deliveredAtMs(e) > e.createdAtMs).map((e) => e.id);
  const delays = ids.map((e) => emu.state.events.deliveredAtMs(e) - e.createdAtMs).filter((d) => d > 0);
  expect(late.length).toBeGreaterThan(30);
  expect(late.length).toBeLessThan(70);
  expect(Math.min(...delays)).toBeGreaterThanOrEqual(30_000);
  expect(Math.max(...delays)).toBeLessThanOrEqual(6 * 3600 * 1000);
  emu.state.events.setLatency({ fraction: 0.25, seed: 7 });
  expect(ids.filter((e) => emu.state.events.deliveredAtMs(e) > e.createdAtMs).map((e) => e.id)).toEqual(late);
  emu.state.events.setLatency({ fraction: 0.25, seed: 8 });
  expect(ids.filter((e) => emu.state.events.deliveredAtMs(e) > e.createdAtMs).map((e) => e.id)).not.toEqual(late);
  emu.state.events.setLatency(null);
  expect(ids.every((e) => emu.state.events.deliveredAtMs(e) === e.createdAtMs)).toBe(true);
  expect(() => emu.state.events.setLatency({ fraction: 1.5 })).toThrow(/fraction/);
});
