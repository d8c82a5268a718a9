// The emulator's artifact metadata endpoints (spec 4.1), `GET /rate_limit` and `GET /user` judged by @octokit/rest and
// the official OpenAPI (octokit-conformance-setup.ts): every behaviour as the service's, every body valid.
import { describe, expect, it } from "vitest";
import { behaviour, behaviours, bodies, client, DIGEST, emu, record, useConformanceEmulator } from "./octokit-conformance-setup.js";

useConformanceEmulator();

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
    // ETags on the record lists (production-facts.md: most endpoints return one); If-None-Match with it: 304.
    for (const kind of ["deployment-records", "storage-records"]) {
      const route = `GET /orgs/{org}/artifacts/{subject_digest}/metadata/${kind}`;
      const etag = (await octokit.request(route, { org, subject_digest: DIGEST })).headers.etag;
      record(`${kind} listing sends a weak ETag`, /^W\/"[^"]+"$/.test(etag ?? ""), String(etag));
      await behaviour(
        `${kind} listing with If-None-Match gives 304`,
        () => octokit.request(route, { org, subject_digest: DIGEST, headers: { "if-none-match": etag ?? "" } }),
        (o) => o.status === 304,
      );
    }
    await behaviour(
      "a JSON array body answers 400 Body should be a JSON object",
      () => octokit.request("POST /orgs/{org}/artifacts/metadata/storage-record", { org, data: [{ name: "web" }] } as never),
      (o) => o.status === 400 && (o.data as { message?: string }).message === "Body should be a JSON object",
    );
  });

  it("rate limit (rate-limit/get)", async () => {
    const octokit = client(emu.tokens.admin!);
    const first = await behaviour(
      "GET /rate_limit 200",
      () => octokit.rest.rateLimit.get(),
      (o) => o.status === 200,
    );
    const second = await octokit.rest.rateLimit.get();
    const used = (o: { data: unknown }) => (o.data as { resources: { core: { used: number } } }).resources.core.used;
    record("GET /rate_limit does not count against the limit", used(first) === used(second), `${used(first)} then ${used(second)}`);
    await octokit.rest.git.getRef({ owner: "acme", repo: "web", ref: "heads/main" }).catch(() => undefined);
    const third = await octokit.rest.rateLimit.get();
    record("GET /rate_limit reports the caller's calls", used(third) === used(second) + 1, `${used(second)} then ${used(third)}`);
  });

  it("the authenticated user (users/get-authenticated)", async () => {
    const login = (o: { data: unknown }) => (o.data ?? {}) as { login?: string; user_view_type?: string };
    for (const name of ["classic", "admin", "appUser"] as const) {
      await behaviour(
        `GET /user with the ${name} token: 200, its user, the public view (no user scope)`,
        () => client(emu.tokens[name]!).rest.users.getAuthenticated(),
        (o) => o.status === 200 && login(o).login === "octo" && login(o).user_view_type === "public",
      );
    }
    await behaviour(
      "GET /user with an installation token: 403 Resource not accessible by integration (not enabled for Apps)",
      () => client(emu.tokens.installation!).rest.users.getAuthenticated(),
      (o) => o.status === 403 && (o.data as { message?: string }).message === "Resource not accessible by integration",
    );
    await behaviour(
      "GET /user without credentials: 401 Requires authentication",
      // An empty token: octokit sends no Authorization header.
      () => client("").rest.users.getAuthenticated(),
      (o) => o.status === 401 && (o.data as { message?: string }).message === "Requires authentication",
    );
    const etag = (await client(emu.tokens.classic!).rest.users.getAuthenticated()).headers.etag;
    await behaviour(
      "GET /user with If-None-Match gives 304",
      () => client(emu.tokens.classic!).rest.users.getAuthenticated({ headers: { "if-none-match": etag ?? "" } }),
      (o) => o.status === 304,
    );
  });

  it("every behaviour agrees and every body validates", () => {
    expect(behaviours.filter((b) => !b.agrees)).toEqual([]);
    expect(bodies.filter((b) => b.errors.length > 0)).toEqual([]);
    expect(bodies.length).toBeGreaterThan(5);
  });
});
