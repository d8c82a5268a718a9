// Repository names as the service allows them: a leading "." (.github) is a name like any other; "." and ".." are
// refused before sending. Over HTTP against the emulator, with a fixture that has acme/.github.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestValidationError, ShiplogClient } from "@shiplog/client";
import { defaultFixture, startEmulator, type Emulator } from "@shiplog/emulator";
import { actingClock } from "../../../test/kit/virtual-clock.js";

let emu: Emulator;
const dotGithub = { name: ".github", id: 7005, private: false, watchers: ["octo"] };
const fixture = {
  ...defaultFixture,
  orgs: (defaultFixture.orgs ?? []).map((org) =>
    org.login === "acme" ? { ...org, repositories: [...(org.repositories ?? []), dotGithub] } : org,
  ),
};

beforeAll(async () => {
  emu = await startEmulator({ fixture });
  emu.activity.push({ actor: "hubot", repo: "acme/.github" });
  emu.activity.openIssue({ actor: "hubot", repo: "acme/.github", title: "Update the profile README", labels: ["docs"] });
});
afterAll(() => emu.stop());

const client = (token: string) => new ShiplogClient({ baseUrl: emu.url, token: emu.tokens[token], retry: false });
const target = { owner: "acme", repo: ".github" };

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe("a repository named .github", () => {
  it("has its events, issue events and notifications listed", async () => {
    const events = await collect(client("admin").activity.listRepoEvents(target));
    expect(events.map((e) => e.repo.name)).toContain("acme/.github");
    const issueEvents = await collect(client("admin").issueEvents.listForRepo(target));
    expect(issueEvents.length).toBeGreaterThan(0);
    const threads = await collect(client("classic").notifications.listForRepo({ ...target, all: true }));
    expect(threads.map((t) => t.repository.full_name)).toEqual(["acme/.github"]);
  });

  it("is followed by the issue event and notification pollers", async () => {
    const stop = new AbortController();
    const clock = actingClock(() => stop.abort());
    const issueEvents = await collect(client("admin").issueEvents.poll(target, { signal: stop.signal, clock }));
    expect(issueEvents.length).toBeGreaterThan(0);
    const again = new AbortController();
    const threads = await collect(
      client("classic").notifications.poll({
        repository: target,
        all: true,
        signal: again.signal,
        clock: actingClock(() => again.abort()),
      }),
    );
    expect(threads).toHaveLength(1);
  });

  it.each([".", ".."])("%s as a repository name is refused before sending", async (repo) => {
    const sent = emu.requests.list().length;
    const error = await (async () => collect(client("admin").issueEvents.listForRepo({ owner: "acme", repo })))().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((i) => i.field)).toEqual(["repo"]);
    expect(emu.requests.list()).toHaveLength(sent);
  });
});
