// The emulator's source imports: the simulated importer as plain data, responses against the official schemas,
// RepositoryImportEvent webhooks to a local receiver, the timer, and the retirement answer.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import {
  advance,
  createImport,
  defaultSource,
  renderImport,
  updateImport,
  vcsFromUrl,
  type ImportState,
  type SimulatedSource,
} from "@shiplog/emulator/internal";
import { validateResponse } from "../../../test/support/openapi-contract.js";
import { callJson } from "../../../test/kit/service-call.js";
import { EventCount } from "../../../test/kit/events.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";

const BEFORE_CUTOFF = "2024-04-11T12:00:00Z";

describe("simulated importer (pure)", () => {
  const source: SimulatedSource = { ...defaultSource("https://git.example.com/r.git"), commitCount: 10 };
  let ids = 0;
  const nextId = () => ++ids;
  const walk = (state: ImportState, steps: number) => {
    const seen: string[] = [];
    for (let i = 0; i < steps; i++) {
      state = advance(state, source, undefined, nextId).state;
      seen.push(state.status);
    }
    return { state, seen };
  };

  it("runs detecting -> importing -> mapping -> pushing -> complete and then stays", () => {
    const { seen, state } = walk(createImport({ vcs_url: "https://git.example.com/r.git" }, source), 9);
    expect(seen).toEqual(["importing", "importing", "importing", "mapping", "pushing", "pushing", "pushing", "complete", "complete"]);
    expect(state).toMatchObject({ vcs: "git", commit_count: 10 });
    expect(state.authors.map((a) => a.remote_name)).toEqual(["alice", "bob"]);
  });

  it("keeps a detection failure pending outside detecting, and uses auth_failed in any working state", () => {
    const importing = createImport({ vcs_url: "https://git.example.com/r.git", vcs: "git" }, source);
    expect(advance(importing, source, { status: "detection_found_nothing" }, nextId)).toMatchObject({
      usedFailure: false,
      state: { status: "importing" },
    });
    expect(advance(importing, source, { status: "auth_failed" }, nextId)).toMatchObject({
      usedFailure: true,
      state: { status: "auth_failed" },
    });
  });

  it("renders the spec's and the OpenAPI's names for progress and errors, never the credentials", () => {
    const state = createImport(
      { vcs_url: "https://git.example.com/r.git", vcs: "git", vcs_username: "u", vcs_password: "pw-never-shown" },
      source,
    );
    const failed = advance(state, source, { status: "error", message: "boom" }, nextId).state;
    const body = renderImport(failed, { api: "http://x/repos/o/r/import", web: "http://x/o/r/import", repository: "http://x/repos/o/r" });
    expect(body).toMatchObject({
      status: "error",
      failed_step: "raw",
      message: "boom",
      error_message: "boom",
      authors_url: "http://x/repos/o/r/import/authors",
    });
    expect(JSON.stringify(body)).not.toContain("pw-never-shown");
    const working = renderImport(state, { api: "a", web: "w", repository: "r" });
    expect(working).toMatchObject({ percent: 0, import_percent: 0, commit_count: 10 });
  });

  it("refuses a project choice that was not offered", () => {
    const multiple = advance(
      createImport({ vcs_url: "https://tfs.example.com/tfs/c" }, source),
      source,
      { status: "detection_found_multiple" },
      nextId,
    ).state;
    expect(updateImport(multiple, { vcs: "tfvc", tfvc_project: "missing" }, source)).toMatchObject({
      ok: false,
      refusal: { field: "project_choices" },
    });
  });

  it("guesses the version-control type from the URL", () => {
    expect(["svn://h/r", "https://h/svn/r", "https://h/hg/r", "https://h/tfs/c", "https://h/r.git"].map(vcsFromUrl)).toEqual([
      "subversion",
      "subversion",
      "mercurial",
      "tfvc",
      "git",
    ]);
  });
});

interface Received {
  headers: IncomingHttpHeaders;
  body: {
    status: string;
    previous_status: string | null;
    repository: { id: number; full_name: string };
    import: Record<string, unknown> | null;
  };
}

let emulator: Emulator;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const CLASSIC = () => ({ authorization: `Bearer ${emulator.tokens.classic}` });

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let data = "";
    req.on("data", (chunk) => (data += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body: JSON.parse(data) });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  emulator = await startEmulator({ importWebhookUrl: receiverUrl });
});
afterAll(async () => {
  await emulator.stop();
  await new Promise((resolve) => receiver.close(resolve));
});
beforeEach(() => {
  emulator.imports.reset();
  emulator.imports.webhooks.setUrl(receiverUrl);
  emulator.clock.set(BEFORE_CUTOFF, { freeze: true });
  received.length = 0;
});

function call(method: string, path: string, body?: unknown, headers: Record<string, string> = CLASSIC()) {
  return callJson(`${emulator.url}${path}`, method, { headers, body });
}

/**
 * `use_lfs` is a boolean as the samples show (spec 2.9 allows string or boolean); no difference is filtered.
 */
function schemaErrors(method: string, path: string, status: number, body: unknown): string[] {
  return validateResponse(method, path, status, body);
}

describe("responses against the official schemas", () => {
  const R = "/repos/{owner}/{repo}/import";
  it("every status of every operation validates", async () => {
    const checked: string[] = [];
    const check = async (
      method: string,
      template: string,
      path: string,
      expected: number,
      body?: unknown,
      headers?: Record<string, string>,
    ) => {
      const answer = await call(method, path, body, headers);
      expect(answer.status, `${method} ${path}`).toBe(expected);
      if (expected !== 204) expect(schemaErrors(method, template, expected, answer.body), `${method} ${path} ${expected}`).toEqual([]);
      checked.push(`${method} ${template} ${expected}`);
      return answer.body;
    };
    emulator.imports.defineSource("https://svn.example.com/svn/p", { files: [{ path: "big", size: 300 * 1024 * 1024 }] });

    await check("GET", R, "/repos/acme/api/import", 404);
    await check("GET", `${R}/authors`, "/repos/acme/api/import/authors", 404);
    await check("PUT", R, "/repos/acme/infra/import", 422, { vcs_url: "https://svn.example.com/svn/p" });
    await check("PUT", R, "/repos/acme/api/import", 422, { vcs_url: "https://svn.example.com/p", vcs: "cvs" });
    await check("PUT", R, "/repos/acme/nope/import", 404, { vcs_url: "https://svn.example.com/svn/p" });
    const created = (await check("PUT", R, "/repos/acme/api/import", 201, { vcs_url: "https://svn.example.com/svn/p" })) as {
      use_lfs: unknown;
    };
    expect(created.use_lfs).toBe(true);
    emulator.imports.failNext("acme", "api", "detection_found_multiple");
    emulator.imports.step("acme", "api");
    await check("GET", R, "/repos/acme/api/import", 200);
    await check("PATCH", R, "/repos/acme/api/import", 200, {});
    for (let i = 0; i < 3; i++) {
      emulator.imports.step("acme", "api");
      await check("GET", R, "/repos/acme/api/import", 200);
    }
    emulator.imports.failNext("acme", "api", "error");
    emulator.imports.step("acme", "api");
    await check("GET", R, "/repos/acme/api/import", 200);
    await check("PATCH", R, "/repos/acme/api/import", 200);
    emulator.imports.runToCompletion("acme", "api");
    await check("GET", R, "/repos/acme/api/import", 200);
    const authors = (await check("GET", `${R}/authors`, "/repos/acme/api/import/authors?since=0", 200)) as { id: number }[];
    await check("PATCH", `${R}/authors/{author_id}`, `/repos/acme/api/import/authors/${authors[0]!.id}`, 200, { name: "A" });
    await check("PATCH", `${R}/authors/{author_id}`, "/repos/acme/api/import/authors/424242", 404, { name: "A" });
    await check("PATCH", `${R}/authors/{author_id}`, `/repos/acme/api/import/authors/${authors[0]!.id}`, 422, { email: 5 });
    expect(await check("GET", `${R}/large_files`, "/repos/acme/api/import/large_files", 200)).toHaveLength(1);
    await check("PATCH", `${R}/lfs`, "/repos/acme/api/import/lfs", 200, { use_lfs: "opt_out" });
    await check("PATCH", `${R}/lfs`, "/repos/acme/api/import/lfs", 422, { use_lfs: "maybe" });
    emulator.imports.setMaintenance(true);
    for (const [method, template, path] of [
      ["GET", R, "/repos/acme/api/import"],
      ["PUT", R, "/repos/acme/api/import"],
      ["PATCH", R, "/repos/acme/api/import"],
      ["DELETE", R, "/repos/acme/api/import"],
      ["GET", `${R}/authors`, "/repos/acme/api/import/authors"],
      ["PATCH", `${R}/authors/{author_id}`, "/repos/acme/api/import/authors/1"],
      ["GET", `${R}/large_files`, "/repos/acme/api/import/large_files"],
      ["PATCH", `${R}/lfs`, "/repos/acme/api/import/lfs"],
    ] as const) {
      await check(method, template, path, 503, method === "GET" || method === "DELETE" ? undefined : {});
    }
    emulator.imports.setMaintenance(false);
    await check("DELETE", R, "/repos/acme/api/import", 204);
    expect(checked.length).toBeGreaterThan(25);
  });

  it("answers 410 Gone from the cutoff on, after authentication and before the token rules", async () => {
    emulator.clock.set("2024-04-12T00:00:00Z", { freeze: true });
    const gone = await call("GET", "/repos/acme/api/import");
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ message: expect.stringContaining("2024-04-12T00:00:00Z"), documentation_url: expect.any(String) });
    const fineGrained = await call(
      "PUT",
      "/repos/acme/api/import",
      { vcs_url: "https://h/r" },
      { authorization: `Bearer ${emulator.tokens.admin}` },
    );
    expect(fineGrained.status).toBe(410);
    expect((await call("GET", "/repos/acme/api/import", undefined, { authorization: "Bearer not-a-token" })).status).toBe(401);
    emulator.clock.set("2024-04-11T23:59:59Z", { freeze: true });
    expect((await call("GET", "/repos/acme/api/import")).status).toBe(404);
  });

  it("refuses other token types with 403 and names the permission in X-Accepted-Service-Permissions", async () => {
    const refused = await call("GET", "/repos/acme/api/import", undefined, { authorization: `Bearer ${emulator.tokens.installation}` });
    expect(refused.status).toBe(403);
    expect((await call("GET", "/repos/acme/api/import")).headers.get("x-accepted-service-permissions")).toBe("contents=read");
  });
});

describe("RepositoryImportEvent webhooks", () => {
  it("delivers one event per status change, in order, with the import and without credentials", async () => {
    await call("PUT", "/repos/acme/api/import", {
      vcs_url: "https://svn.example.com/svn/p",
      vcs_username: "u",
      vcs_password: "pw-secret-1",
    });
    emulator.imports.failNext("acme", "api", "detection_needs_auth");
    emulator.imports.step("acme", "api");
    await call("PATCH", "/repos/acme/api/import", { vcs_username: "u", vcs_password: "pw-secret-2" });
    emulator.imports.runToCompletion("acme", "api");
    await call("DELETE", "/repos/acme/api/import");
    await emulator.imports.webhooks.idle();

    expect(received.map((r) => [r.body.previous_status, r.body.status])).toEqual([
      [null, "detecting"],
      ["detecting", "detection_needs_auth"],
      ["detection_needs_auth", "detecting"],
      ["detecting", "importing"],
      ["importing", "mapping"],
      ["mapping", "pushing"],
      ["pushing", "complete"],
      ["complete", "cancelled"],
    ]);
    expect(received[0]!.headers).toMatchObject({ "x-service-event": "repository_import", "content-type": "application/json" });
    expect(new Set(received.map((r) => r.headers["x-service-delivery"])).size).toBe(received.length);
    expect(received[0]!.body.repository).toMatchObject({ id: 7002, full_name: "acme/api" });
    expect(received[6]!.body.import).toMatchObject({ status: "complete", url: `${emulator.url}/repos/acme/api/import` });
    expect(received[7]!.body.import).toBeNull();
    expect(JSON.stringify(received)).not.toMatch(/pw-secret/);
    expect(emulator.imports.webhooks.deliveries().every((d) => d.responseStatus === 202)).toBe(true);
  });

  it("records a failed delivery and carries on; no URL means no deliveries", async () => {
    emulator.imports.webhooks.setUrl("http://127.0.0.1:9/unreachable");
    await call("PUT", "/repos/acme/api/import", { vcs_url: "https://svn.example.com/svn/p" });
    await emulator.imports.webhooks.idle();
    expect(emulator.imports.webhooks.deliveries()).toEqual([expect.objectContaining({ responseStatus: 0, error: expect.any(String) })]);
    emulator.imports.webhooks.setUrl(undefined);
    emulator.imports.step("acme", "api");
    await emulator.imports.webhooks.idle();
    expect(emulator.imports.webhooks.deliveries()).toHaveLength(1);
    expect(received).toHaveLength(0);
  });
});

describe("timer-driven importer (demo mode)", () => {
  it("advances imports on its own, on the emulator's clock, and stops with the emulator", async () => {
    const clock = new VirtualClock();
    const timed = await startEmulator({ importStepIntervalMs: 5, clock });
    try {
      timed.clock.set(BEFORE_CUTOFF, { freeze: true });
      const headers = { authorization: `Bearer ${timed.tokens.classic}`, "content-type": "application/json" };
      await fetch(`${timed.url}/repos/acme/api/import`, { method: "PUT", headers, body: JSON.stringify({ vcs_url: "https://h/r.git" }) });
      const status = () => timed.imports.get("acme", "api")!.state.status;
      // A step each 5 ms of the clock, and none in between.
      await clock.advance(4);
      expect(status()).toBe("detecting");
      await clock.advance(1);
      expect(status()).toBe("importing");
      const seen = new Set<string>();
      for (let step = 0; step < 100 && status() !== "complete"; step++) {
        await clock.advance(5);
        seen.add(status());
      }
      expect([...seen]).toEqual(["importing", "mapping", "pushing", "complete"]);
    } finally {
      await timed.stop();
    }
    // Stopped: no wait of the importer is left on the clock.
    expect(clock.nextAt).toBeUndefined();
  });
});

describe("a webhook receiver that never answers", () => {
  it("is given up after 10 s on the emulator's clock: the delivery is recorded as timed out, the next one goes", async () => {
    const arrived = new EventCount();
    const silent = createServer(() => arrived.add()); // never answers
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const clock = new VirtualClock();
    const quiet = await startEmulator({ clock, importWebhookUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook` });
    try {
      quiet.clock.set(BEFORE_CUTOFF, { freeze: true });
      const headers = { authorization: `Bearer ${quiet.tokens.classic}`, "content-type": "application/json" };
      await fetch(`${quiet.url}/repos/acme/api/import`, { method: "PUT", headers, body: JSON.stringify({ vcs_url: "https://h/r.git" }) });
      quiet.imports.step("acme", "api");
      // Deliveries go one at a time: the second is sent when the first is given up.
      await arrived.reached(1);
      await clock.advance(9_999);
      expect(quiet.imports.webhooks.deliveries()).toEqual([]);
      await clock.advance(1);
      await arrived.reached(2);
      await clock.advance(10_000);
      await quiet.imports.webhooks.idle();
      expect(quiet.imports.webhooks.deliveries().map((d) => [d.payload.status, d.responseStatus, d.error])).toEqual([
        ["detecting", 0, "The operation was aborted due to timeout"],
        ["importing", 0, "The operation was aborted due to timeout"],
      ]);
    } finally {
      await quiet.stop();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
