// The emulator judged by sources it did not write: driven by @octokit/rest (octokit's own methods where it has
// them, octokit.request elsewhere) across every endpoint family of the spec, every body it receives checked
// against the official response schema of @octokit/openapi (github → service names). Prints agreements and
// divergences; the divergences left are listed in the emulator README.
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { Ajv, type ValidateFunction } from "ajv";
import { operation, toJsonSchema, validateResponse } from "../../../test/support/openapi-contract.js";
import { endpointList } from "@shiplog/client/endpoints";

const TEMPLATES = endpointList().map(({ method, route: path }) => {
  return { method, path, pattern: new RegExp(`^${path.replace(/\{ref\}/, ".+").replace(/\{[^}]+\}/g, "[^/]+")}$`) };
});

/** The OpenAPI template of a call: octokit gives one, except for the `next` URLs pagination follows. */
function templateOf(method: string, url: string): string {
  if (url.includes("{")) return url;
  const path = new URL(url, "http://x").pathname;
  return TEMPLATES.find((t) => t.method === method && t.pattern.test(path))?.path ?? path;
}

/** The spec writes `service` where the OpenAPI writes `github` (`performed_via_service_app`): keys mapped back. */
function openApiNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(openApiNames);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace("_service_", "_github_"), openApiNames(v)]));
}

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const payloadValidators = new Map<string, ValidateFunction>();
/**
 * The official event schema's `payload` is a oneOf whose PublicEvent branch accepts any object, so no other
 * payload can match exactly one branch (README, divergences). Each payload is checked against the branch its
 * event `type` names instead, and the event around it with an empty payload.
 */
function payloadErrors(event: { type: string; payload: unknown }): string[] {
  if (!payloadValidators.has(event.type)) {
    const item = (
      operation("GET", "/events").responses["200"]!.content!["application/json"]!.schema as {
        items: { properties: { payload: { oneOf: { title: string }[] } } };
      }
    ).items;
    const branch = item.properties.payload.oneOf.find((b) => b.title === event.type);
    if (!branch) return [`no payload schema for ${event.type}`];
    payloadValidators.set(event.type, ajv.compile(toJsonSchema(branch) as object));
  }
  const validate = payloadValidators.get(event.type)!;
  return validate(event.payload)
    ? []
    : (validate.errors ?? []).slice(0, 3).map((e) => `${event.type} payload${e.instancePath} ${e.message}`);
}

/** The schema errors of one answer, or undefined when the OpenAPI defines no JSON body for that status. */
function schemaErrors(method: string, url: string, status: number, body: unknown): string[] | undefined {
  const route = templateOf(method, url);
  if (!operation(method, route).responses[String(status)]?.content?.["application/json"]?.schema) return undefined;
  const isFeed = /\/(events|received_events)(\/|$)/.test(route) && !route.includes("/issues");
  if (isFeed && Array.isArray(body)) {
    const events = body as { type: string; payload: unknown }[];
    const outer = validateResponse(method, route, status, events).filter((e) => !/^\/\d+\/payload/.test(e));
    return [...outer, ...events.flatMap(payloadErrors)].slice(0, 3);
  }
  return validateResponse(method, route, status, openApiNames(body)).slice(0, 3);
}

let emu: Emulator;
const bodies: { call: string; status: number; errors: string[] }[] = [];
const behaviours: { name: string; agrees: boolean; detail: string }[] = [];

function client(token: string): Octokit {
  const octokit = new Octokit({ baseUrl: emu.url, auth: token, request: { retries: 0 } });
  const check = (method: string, url: string, status: number, data: unknown) => {
    const errors = schemaErrors(method, url, status, data);
    if (errors !== undefined && status !== 204 && status !== 205 && status !== 304)
      bodies.push({ call: `${method} ${url}`, status, errors });
  };
  octokit.hook.after("request", (response, options) => check(options.method, options.url, response.status, response.data));
  octokit.hook.error("request", (error, options) => {
    const failure = error as { status?: number; response?: { data?: unknown } };
    if (failure.status !== undefined && failure.response) check(options.method, options.url, failure.status, failure.response.data);
    throw error;
  });
  return octokit;
}

/** Records one behaviour: what the service does per spec/OpenAPI, and whether the emulator agrees. */
async function behaviour(name: string, run: () => Promise<unknown>, expected: (outcome: { status: number; data: unknown }) => boolean) {
  let outcome: { status: number; data: unknown };
  try {
    const response = (await run()) as { status: number; data: unknown };
    outcome = { status: response.status, data: response.data };
  } catch (error) {
    const failure = error as { status?: number; response?: { data?: unknown }; message: string };
    outcome = { status: failure.status ?? 0, data: failure.response?.data ?? failure.message };
  }
  const agrees = expected(outcome);
  behaviours.push({ name, agrees, detail: `${outcome.status}` });
  return outcome;
}

const DIGEST = `sha256:${"a".repeat(64)}`;

beforeAll(async () => {
  emu = await startEmulator();
  // Activity of every kind the generator makes, before the import cut-off (spec 9) so imports still answer.
  emu.clock.set("2024-03-01T10:00:00Z", { freeze: true });
  const repo = "acme/web";
  emu.activity.push({ actor: "octo", repo, commits: 2 });
  emu.activity.star({ actor: "hubot", repo });
  emu.activity.createBranch({ actor: "octo", repo, ref: "feature" });
  const issue = emu.activity.openIssue({ actor: "hubot", repo, title: "Broken link", labels: ["bug"] });
  emu.activity.comment({ actor: "hubot", repo, issue: issue.number, body: "see above", mentions: ["octo"] });
  emu.activity.label({ actor: "octo", repo, issue: issue.number, label: "triage" });
  emu.activity.assign({ actor: "octo", repo, issue: issue.number, assignee: "octo" });
  emu.activity.closeIssue({ actor: "octo", repo, issue: issue.number });
  emu.activity.openIssue({ actor: "octo", repo, title: "A pull request", pullRequest: true });
});
afterAll(async () => {
  const agreed = behaviours.filter((b) => b.agrees).length;
  const valid = bodies.filter((b) => b.errors.length === 0).length;
  console.log(`octokit conformance: ${agreed} of ${behaviours.length} behaviours agree; ${valid} of ${bodies.length} bodies validate`);
  for (const b of behaviours.filter((x) => !x.agrees)) console.log(`  DIVERGES ${b.name} (got ${b.detail})`);
  for (const b of bodies.filter((x) => x.errors.length > 0)) console.log(`  BODY ${b.call} ${b.status}: ${b.errors.join("; ")}`);
  await emu.stop();
});

describe("@octokit/rest against the emulator", () => {
  it("artifact metadata (4.1)", async () => {
    const octokit = client(emu.tokens.admin!);
    const org = "acme";
    await behaviour(
      "deployment record 200",
      () =>
        octokit.request("POST /orgs/{org}/artifacts/metadata/deployment-record", {
          org,
          name: "web",
          digest: DIGEST,
          status: "deployed",
          logical_environment: "prod",
          deployment_name: "ns-web-app",
          github_repository: "web",
          tags: { team: "a" },
        }),
      (o) => o.status === 200,
    );
    await behaviour(
      "cluster records 200",
      () =>
        octokit.request("POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}", {
          org,
          cluster: "prod-eu",
          logical_environment: "prod",
          deployments: [{ name: "web", digest: DIGEST, deployment_name: "ns-web-app", github_repository: "web" }],
        }),
      (o) => o.status === 200,
    );
    await behaviour(
      "cluster entry with 6 tags refused 422",
      () =>
        octokit.request("POST /orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}", {
          org,
          cluster: "prod-eu",
          logical_environment: "prod",
          deployments: [
            {
              name: "web",
              digest: DIGEST,
              deployment_name: "x",
              github_repository: "web",
              tags: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`k${i}`, "v"])),
            },
          ],
        }),
      (o) => o.status === 422,
    );
    await behaviour(
      "NUL in deployment_name refused 422",
      () =>
        octokit.request("POST /orgs/{org}/artifacts/metadata/deployment-record", {
          org,
          name: "web",
          digest: DIGEST,
          status: "deployed",
          logical_environment: "prod",
          deployment_name: "a\u0000b",
          github_repository: "web",
        }),
      (o) => o.status === 422 && JSON.stringify(o.data).includes("deployment_name"),
    );
    await behaviour(
      "__proto__ tag key kept as a key",
      () =>
        octokit.request("POST /orgs/{org}/artifacts/metadata/deployment-record", {
          org,
          name: "web",
          digest: DIGEST,
          status: "deployed",
          logical_environment: "prod",
          deployment_name: "proto",
          github_repository: "web",
          tags: JSON.parse('{"__proto__": "x"}'),
          return_records: true,
        }),
      (o) => o.status === 200 && JSON.stringify(o.data).includes('"__proto__":"x"'),
    );
    await behaviour(
      "unknown body field ignored",
      () =>
        octokit.request("POST /orgs/{org}/artifacts/metadata/storage-record", {
          org,
          name: "web",
          digest: DIGEST,
          registry_url: "https://reg.example.com/",
          github_repository: "web",
          no_such_field: 1,
        }),
      (o) => o.status === 200,
    );
    await behaviour(
      "storage records listing (octokit method)",
      () => octokit.rest.orgs.listArtifactStorageRecords({ org, subject_digest: DIGEST }),
      (o) => o.status === 200,
    );
    await behaviour(
      "deployment records listing",
      () => octokit.request("GET /orgs/{org}/artifacts/{subject_digest}/metadata/deployment-records", { org, subject_digest: DIGEST }),
      (o) => o.status === 200,
    );
  });

  it("git tags and refs (4.2)", async () => {
    const octokit = client(emu.tokens.admin!);
    const head = emu.state.git.repository("acme", "web")!.head()!;
    const tag = await behaviour(
      "createTag 201",
      () =>
        octokit.rest.git.createTag({
          owner: "acme",
          repo: "web",
          tag: "v1",
          message: "one",
          object: head,
          type: "commit",
          tagger: { name: "T", email: "t@e", date: "2024-02-01T10:00:00+02:00" },
        }),
      (o) => o.status === 201 && (o.data as { message: string }).message === "one\n",
    );
    const sha = (tag.data as { sha: string }).sha;
    await behaviour(
      "getTag 200",
      () => octokit.rest.git.getTag({ owner: "acme", repo: "web", tag_sha: sha }),
      (o) => o.status === 200,
    );
    await behaviour(
      "tag dated 1969 refused 422",
      () =>
        octokit.rest.git.createTag({
          owner: "acme",
          repo: "web",
          tag: "old",
          message: "m",
          object: head,
          type: "commit",
          tagger: { name: "T", email: "t@e", date: "1969-12-31T23:59:59Z" },
        }),
      (o) => o.status === 422,
    );
    await behaviour(
      "createRef 201",
      () => octokit.rest.git.createRef({ owner: "acme", repo: "web", ref: "refs/tags/v1", sha }),
      (o) => o.status === 201,
    );
    await behaviour(
      "getRef 200",
      () => octokit.rest.git.getRef({ owner: "acme", repo: "web", ref: "tags/v1" }),
      (o) => o.status === 200,
    );
    const classic = client(emu.tokens.classic!);
    await behaviour(
      "classic token with repo may create a tag",
      () => classic.rest.git.createTag({ owner: "acme", repo: "web", tag: "v2", message: "m", object: head, type: "commit" }),
      (o) => o.status === 201,
    );
  });

  it("notifications (4.3)", async () => {
    const octokit = client(emu.tokens.classic!);
    const threads = await octokit.paginate(octokit.rest.activity.listNotificationsForAuthenticatedUser, { all: true, per_page: 50 });
    behaviours.push({ name: "paginate notifications", agrees: threads.length > 0, detail: String(threads.length) });
    const first = await octokit.rest.activity.listNotificationsForAuthenticatedUser();
    await behaviour(
      "If-Modified-Since gives 304",
      () =>
        octokit.rest.activity.listNotificationsForAuthenticatedUser({ headers: { "if-modified-since": first.headers["last-modified"]! } }),
      (o) => o.status === 304,
    );
    await behaviour(
      "per_page=51 on /notifications refused 422",
      () => octokit.rest.activity.listNotificationsForAuthenticatedUser({ per_page: 51 }),
      (o) => o.status === 422,
    );
    const id = Number(threads[0]!.id);
    await behaviour(
      "getThread",
      () => octokit.rest.activity.getThread({ thread_id: id }),
      (o) => o.status === 200,
    );
    await behaviour(
      "setThreadSubscription",
      () => octokit.rest.activity.setThreadSubscription({ thread_id: id, ignored: false }),
      (o) => o.status === 200,
    );
    await behaviour(
      "getThreadSubscription",
      () => octokit.rest.activity.getThreadSubscriptionForAuthenticatedUser({ thread_id: id }),
      (o) => o.status === 200,
    );
    await behaviour(
      "deleteThreadSubscription",
      () => octokit.rest.activity.deleteThreadSubscription({ thread_id: id }),
      (o) => o.status === 204,
    );
    await behaviour(
      "markThreadAsRead",
      () => octokit.rest.activity.markThreadAsRead({ thread_id: id }),
      (o) => o.status === 205,
    );
    await behaviour(
      "markRepoNotificationsAsRead",
      () => octokit.rest.activity.markRepoNotificationsAsRead({ owner: "acme", repo: "web" }),
      (o) => o.status === 205 || o.status === 202,
    );
    await behaviour(
      "markNotificationsAsRead() with no arguments",
      () => octokit.rest.activity.markNotificationsAsRead(),
      (o) => o.status === 205 || o.status === 202,
    );
    await behaviour(
      "markThreadAsDone",
      () => octokit.rest.activity.markThreadAsDone({ thread_id: id }),
      (o) => o.status === 204,
    );
    await behaviour(
      "repository notifications",
      () => octokit.rest.activity.listRepoNotificationsForAuthenticatedUser({ owner: "acme", repo: "web", all: true }),
      (o) => o.status === 200,
    );
  });

  it("activity events (4.4, 6.1, 8)", async () => {
    const octokit = client(emu.tokens.admin!);
    const events = await octokit.paginate(octokit.rest.activity.listRepoEvents, { owner: "acme", repo: "web", per_page: 100 });
    const types = new Set(events.map((e) => e.type));
    behaviours.push({ name: "repository feed holds every generated type", agrees: types.size >= 5, detail: [...types].join(",") });
    const page = await octokit.rest.activity.listRepoEvents({ owner: "acme", repo: "web" });
    await behaviour(
      "If-None-Match with the ETag gives 304",
      () => octokit.rest.activity.listRepoEvents({ owner: "acme", repo: "web", headers: { "if-none-match": page.headers.etag! } }),
      (o) => o.status === 304,
    );
    const opaque = page.headers.etag!.replace(/^W\//, "");
    await behaviour(
      "If-None-Match with the opaque tag gives 304 (weak comparison)",
      () => octokit.rest.activity.listRepoEvents({ owner: "acme", repo: "web", headers: { "if-none-match": opaque } }),
      (o) => o.status === 304,
    );
    for (const [query, value] of [
      ["per_page", 101],
      ["page", 0],
      ["per_page", "abc"],
    ] as const) {
      await behaviour(
        `feed ${query}=${value} refused 422`,
        () => octokit.request("GET /repos/{owner}/{repo}/events", { owner: "acme", repo: "web", [query]: value }),
        (o) => o.status === 422,
      );
    }
    const calls: [string, () => Promise<unknown>][] = [
      ["listPublicEvents", () => octokit.rest.activity.listPublicEvents()],
      ["listPublicEventsForRepoNetwork", () => octokit.rest.activity.listPublicEventsForRepoNetwork({ owner: "acme", repo: "web" })],
      ["listPublicOrgEvents", () => octokit.rest.activity.listPublicOrgEvents({ org: "acme" })],
      ["listEventsForAuthenticatedUser", () => octokit.rest.activity.listEventsForAuthenticatedUser({ username: "octo" })],
      [
        "listOrgEventsForAuthenticatedUser",
        () => octokit.rest.activity.listOrgEventsForAuthenticatedUser({ username: "octo", org: "acme" }),
      ],
      ["listPublicEventsForUser", () => octokit.rest.activity.listPublicEventsForUser({ username: "hubot" })],
      ["listReceivedEventsForUser", () => octokit.rest.activity.listReceivedEventsForUser({ username: "octo" })],
      ["listReceivedPublicEventsForUser", () => octokit.rest.activity.listReceivedPublicEventsForUser({ username: "octo" })],
    ];
    for (const [name, call] of calls) await behaviour(name, call, (o) => o.status === 200);
  });

  it("issue events (4.5)", async () => {
    const octokit = client(emu.tokens.admin!);
    const all = await octokit.paginate(octokit.rest.issues.listEventsForRepo, { owner: "acme", repo: "web" });
    behaviours.push({ name: "paginate issue events", agrees: all.length > 0, detail: String(all.length) });
    await behaviour(
      "getEvent",
      () => octokit.rest.issues.getEvent({ owner: "acme", repo: "web", event_id: all[0]!.id }),
      (o) => o.status === 200,
    );
    await behaviour(
      "listEvents of one issue",
      () => octokit.rest.issues.listEvents({ owner: "acme", repo: "web", issue_number: 1 }),
      (o) => o.status === 200,
    );
  });

  it("source imports (4.4b)", async () => {
    const octokit = client(emu.tokens.classic!);
    const target = { owner: "acme", repo: "api" };
    await behaviour(
      "start import 201",
      () => octokit.request("PUT /repos/{owner}/{repo}/import", { ...target, vcs_url: "https://svn.example.com/api", vcs: "subversion" }),
      (o) => o.status === 201,
    );
    await behaviour(
      "import status, use_lfs as the samples show",
      () => octokit.request("GET /repos/{owner}/{repo}/import", target),
      (o) => o.status === 200 && typeof (o.data as { use_lfs: unknown }).use_lfs === "boolean",
    );
    await behaviour(
      "PATCH import with no body restarts (200)",
      () => octokit.request("PATCH /repos/{owner}/{repo}/import", target),
      (o) => o.status === 200,
    );
    emu.imports.runToCompletion("acme", "api");
    const authors = await behaviour(
      "commit authors",
      () => octokit.request("GET /repos/{owner}/{repo}/import/authors", target),
      (o) => o.status === 200,
    );
    const author = (authors.data as { id: number }[])[0];
    if (author)
      await behaviour(
        "map author",
        () => octokit.request("PATCH /repos/{owner}/{repo}/import/authors/{author_id}", { ...target, author_id: author.id, name: "Octo" }),
        (o) => o.status === 200,
      );
    await behaviour(
      "large files",
      () => octokit.request("GET /repos/{owner}/{repo}/import/large_files", target),
      (o) => o.status === 200,
    );
    await behaviour(
      "lfs preference",
      () => octokit.request("PATCH /repos/{owner}/{repo}/import/lfs", { ...target, use_lfs: "opt_in" }),
      (o) => o.status === 200,
    );
    await behaviour(
      "cancel import",
      () => octokit.request("DELETE /repos/{owner}/{repo}/import", target),
      (o) => o.status === 204,
    );
  });

  it("every behaviour agrees and every body validates", () => {
    expect(behaviours.filter((b) => !b.agrees)).toEqual([]);
    expect(bodies.filter((b) => b.errors.length > 0)).toEqual([]);
    expect(bodies.length).toBeGreaterThan(35);
  });
});
