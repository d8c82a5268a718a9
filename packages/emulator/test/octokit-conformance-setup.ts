// The setup the octokit conformance tests share: the emulator judged by sources it did not write, driven by
// @octokit/rest (octokit's own methods where it has them, octokit.request elsewhere), every body it receives checked
// against the official response schema of @octokit/openapi (github → service names). Each file prints its agreements
// and divergences; the divergences left are listed in the emulator README. Each behaviour and each body is also
// asserted where it is checked (expect.soft), so the test that makes the call fails for its own divergence and the
// file still records every other one. `emu` is a live binding, set once the hooks have run.
import { Octokit } from "@octokit/rest";
import { afterAll, beforeAll, expect } from "vitest";
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

export let emu: Emulator;
/** Every answer with a JSON body the OpenAPI defines, and its schema errors. */
export const bodies: { call: string; status: number; errors: string[] }[] = [];
/** Every behaviour checked, and whether the emulator agrees with the service. */
export const behaviours: { name: string; agrees: boolean; detail: string }[] = [];

/** An octokit for the emulator with `token`, checking every answer's body against the OpenAPI. */
export function client(token: string): Octokit {
  const octokit = new Octokit({ baseUrl: emu.url, auth: token, request: { retries: 0 } });
  const check = (method: string, url: string, status: number, data: unknown) => {
    const errors = schemaErrors(method, url, status, data);
    if (errors !== undefined && status !== 204 && status !== 205 && status !== 304) {
      bodies.push({ call: `${method} ${url}`, status, errors });
      expect.soft(errors, `${method} ${url} ${status}: the body validates against the official schema`).toEqual([]);
    }
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
export async function behaviour(
  name: string,
  run: () => Promise<unknown>,
  expected: (outcome: { status: number; data: unknown }) => boolean,
) {
  let outcome: { status: number; data: unknown };
  try {
    const response = (await run()) as { status: number; data: unknown };
    outcome = { status: response.status, data: response.data };
  } catch (error) {
    const failure = error as { status?: number; response?: { data?: unknown }; message: string };
    outcome = { status: failure.status ?? 0, data: failure.response?.data ?? failure.message };
  }
  record(name, expected(outcome), `${outcome.status}`);
  return outcome;
}

/** Records (and asserts) one behaviour checked by hand: whether the emulator agrees with the service. */
export function record(name: string, agrees: boolean, detail: string): void {
  behaviours.push({ name, agrees, detail });
  expect.soft(agrees, `${name} (got ${detail})`).toBe(true);
}

/** An image digest the tests record. */
export const DIGEST = `sha256:${"a".repeat(64)}`;

/** Registers the file's hooks: start the emulator with activity of every kind; at the end print the verdicts and stop it. */
export function useConformanceEmulator(): void {
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
}
