// Request-side conformance, generated from the official request schemas (not written by hand): for every
// operation the emulator serves, requests the schema forbids are refused with 422 naming the field, and requests
// it allows are accepted. Also: the shipped validators are current with @octokit/openapi and the emulator's
// dist loads neither ajv nor the description.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultFixture, startEmulator, type Emulator } from "@shiplog/emulator";
import { endpointList } from "@shiplog/client/endpoints";
import { operation } from "../../../test/support/openapi-contract.js";

const here = dirname(fileURLToPath(import.meta.url));
type Schema = {
  type?: string;
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  nullable?: boolean;
};
type Request = { query: Record<string, string>; body: unknown; label: string; field?: string };

const DIGEST = `sha256:${"b".repeat(64)}`;
let emu: Emulator;
let head = "";
let counter = 0;
const printed: string[] = [];

/** A value the schema allows, with names the emulator's world can resolve (repository, object, source URL). */
function sample(schema: Schema, name: string, all: boolean): unknown {
  const known: Record<string, () => unknown> = {
    digest: () => DIGEST,
    github_repository: () => "web",
    object: () => head,
    sha: () => head,
    type: () => "commit",
    tag: () => `gen-${++counter}`,
    ref: () => `refs/tags/gen-${++counter}`,
    deployment_name: () => `gen-${++counter}`,
    vcs_url: () => "https://svn.example.com/gen",
    vcs: () => "subversion",
    registry_url: () => "https://reg.example.com/",
    artifact_url: () => "https://reg.example.com/a",
    use_lfs: () => "opt_in",
  };
  if (known[name] && schema.type !== "object" && schema.type !== "array") return known[name]!();
  if (schema.enum) return schema.enum[0];
  switch (schema.type) {
    case "integer":
    case "number":
      return schema.minimum ?? 1;
    case "boolean":
      return true;
    case "array":
      return [sample(schema.items ?? {}, name, all)];
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(schema.properties ?? {})) {
        if (all || schema.required?.includes(key)) out[key] = sample(value, key, all);
      }
      if (!schema.properties) out.key = "value";
      return out;
    }
    default:
      if (schema.format === "date-time") return "2024-03-01T00:00:00Z";
      if (schema.format === "uri") return "https://reg.example.com/x";
      return "x".repeat(Math.max(schema.minLength ?? 1, 1));
  }
}

/** Values the schema forbids for one property, each with what it breaks. */
function forbidden(schema: Schema, inQuery: boolean): [unknown, string][] {
  const out: [unknown, string][] = [];
  if (schema.type === "integer") out.push(["abc", "type"], ["1.5", "type"], [inQuery ? "x1" : true, "type"]);
  if (schema.type === "boolean") out.push(["maybe", "type"], ["yes", "type"], [inQuery ? "2" : "true", "type"]);
  if (!inQuery && schema.type === "string") out.push([12345, "type"], [true, "type"], [["x"], "type"]);
  if (schema.format === "date-time") out.push(["yesterday", "format date-time"]);
  if (!inQuery && schema.type === "array") out.push(["not-an-array", "type"]);
  if (!inQuery && schema.type === "object") out.push(["not-an-object", "type"]);
  if (schema.enum) out.push(["not-an-allowed-value", "enum"]);
  if (schema.maxLength !== undefined) out.push(["x".repeat(schema.maxLength + 1), "maxLength"]);
  if (schema.pattern) out.push(["!! no match !!", "pattern"]);
  if (schema.maximum !== undefined) out.push([inQuery ? String(schema.maximum + 1) : schema.maximum + 1, "maximum"]);
  if (schema.minimum !== undefined) out.push([inQuery ? String(schema.minimum - 1) : schema.minimum - 1, "minimum"]);
  return out;
}

/** The requests of one operation, generated from its official schemas. */
function generate(method: string, path: string): { allowed: Request[]; refused: Request[] } {
  const op = operation(method, path) as unknown as {
    parameters?: { in: string; name: string; schema: Schema }[];
    requestBody?: { content?: Record<string, { schema: Schema }> };
  };
  const query = (op.parameters ?? []).filter((p) => p.in === "query");
  const body = op.requestBody?.content?.["application/json"]?.schema;
  const allowed: Request[] = [];
  const refused: Request[] = [];
  if (body) {
    allowed.push({ query: {}, body: sample(body, "", false), label: "required fields only" });
    allowed.push({ query: {}, body: sample(body, "", true), label: "every field" });
    allowed.push({ query: {}, body: { ...(sample(body, "", false) as object), zz_unknown_field: 1 }, label: "an unknown field (ignored)" });
    for (const [field, schema] of Object.entries(body.properties ?? {})) {
      for (const [value, rule] of forbidden(schema, false)) {
        refused.push({
          query: {},
          body: { ...(sample(body, "", false) as object), [field]: value },
          label: `${field} breaks ${rule}`,
          field,
        });
      }
    }
    for (const field of body.required ?? []) {
      const valid = sample(body, "", false) as Record<string, unknown>;
      delete valid[field];
      refused.push({ query: {}, body: valid, label: `${field} missing`, field });
    }
  } else if (query.length > 0) {
    allowed.push({ query: {}, body: undefined, label: "no parameters" });
    allowed.push({
      query: Object.fromEntries(query.map((p) => [p.name, String(sample(p.schema, p.name, true))])),
      body: undefined,
      label: "every parameter",
    });
    allowed.push({ query: { zz_unknown: "1" }, body: undefined, label: "an unknown parameter (ignored)" });
    for (const p of query)
      for (const [value, rule] of forbidden(p.schema, true))
        refused.push({ query: { [p.name]: String(value) }, body: undefined, label: `${p.name} breaks ${rule}`, field: p.name });
  } else {
    allowed.push(
      { query: {}, body: undefined, label: "as is" },
      { query: { zz_unknown: "1" }, body: undefined, label: "an unknown parameter (ignored)" },
    );
  }
  // Several fields rather than one field's many rules, so the three cover what they can.
  const byField = [...new Map(refused.map((r) => [r.field, r])).values()];
  const spread = [...byField, ...refused.filter((r) => !byField.includes(r))];
  return { allowed, refused: spread.slice(0, Math.max(3, byField.length)) };
}

const PARAMS: Record<string, string> = {
  org: "acme",
  owner: "acme",
  cluster: "prod-eu",
  subject_digest: DIGEST,
  username: "octo",
  issue_number: "1",
  ref: "heads/main",
};

beforeAll(async () => {
  // An attestation links the digest to acme/web, so requests without github_repository resolve (spec 4.1).
  emu = await startEmulator({
    fixture: { ...defaultFixture, attestations: [{ org: "acme", repository: "web", digest: DIGEST, id: 9001 }] },
    // Hundreds of generated writes within a frozen minute, on purpose: far over the service's 80 a minute.
    secondaryLimits: false,
  });
  emu.clock.set("2024-03-01T10:00:00Z", { freeze: true });
  head = emu.state.git.repository("acme", "web")!.head()!;
  const issue = emu.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "t" });
  emu.activity.comment({ actor: "hubot", repo: "acme/web", issue: issue.number, mentions: ["octo"] });
  emu.activity.closeIssue({ actor: "octo", repo: "acme/web", issue: issue.number });
});
afterAll(async () => {
  console.log(`request schemas:\n${printed.join("\n")}`);
  await emu.stop();
});

async function send(method: string, path: string, request: Request): Promise<{ status: number; body: { errors?: { field: string }[] } }> {
  const imports = path.includes("/import");
  const classic = imports || path.includes("notifications");
  const params: Record<string, string> = { ...PARAMS, repo: imports ? "api" : "web" };
  if (path.includes("{thread_id}")) {
    // A fresh mention, so a thread exists even after an earlier request marked it done.
    emu.activity.mention({ actor: "hubot", repo: "acme/web", issue: 1, user: "octo" });
    emu.state.notifications.list("octo", { all: true });
  }
  if (path.includes("{thread_id}"))
    params.thread_id = String(emu.state.notifications.list("octo", { all: true, participating: false })[0]!.id);
  if (path.includes("{tag_sha}"))
    params.tag_sha = emu.state.git.repository("acme", "web")!.createTag({
      tag: "t",
      message: "m",
      object: head,
      type: "commit",
      tagger: { name: "a", email: "b", seconds: 1, offset: "+0000" },
    }).sha;
  if (path.includes("{commit_sha}")) params.commit_sha = head;
  if (path.includes("{event_id}")) params.event_id = String(emu.state.issueEvents.repoEvents("acme", "web")[0]!.id);
  if (imports && method === "PUT") emu.imports.reset();
  if (imports && method !== "PUT" && !emu.imports.get("acme", "api")) {
    await send("PUT", "/repos/{owner}/{repo}/import", {
      query: {},
      body: { vcs_url: "https://svn.example.com/gen", vcs: "subversion" },
      label: "setup",
    });
    emu.imports.runToCompletion("acme", "api");
  }
  if (path.includes("{author_id}")) params.author_id = String(emu.imports.get("acme", "api")!.state.authors[0]?.id ?? 1);
  const url = new URL(
    path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]!).replace(/%2F/g, "/")),
    emu.url,
  );
  for (const [k, v] of Object.entries(request.query)) url.searchParams.set(k, v);
  const token = classic ? emu.tokens.classic : emu.tokens.admin;
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(request.body === undefined ? {} : { "content-type": "application/json" }) },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

// Every operation of the registry a token calls (an App's JWT endpoints are checked with their own tests).
const served = endpointList()
  .filter((endpoint) => endpoint.auth !== "app_jwt")
  .map((endpoint) => `${endpoint.method} ${endpoint.route}`)
  .filter((key) => !/matching-refs|PATCH .*git\/refs|DELETE .*git\/refs/.test(key));

describe("requests generated from the official request schemas", () => {
  it.each(served)("%s", async (key) => {
    const [method, path] = key.split(" ") as [string, string];
    const { allowed, refused } = generate(method, path);
    for (const request of allowed) {
      const answer = await send(method, path, request);
      expect(answer.status, `${key} ${request.label}: ${JSON.stringify(answer.body)}`).not.toBe(422);
      expect(answer.status, `${key} ${request.label}`).toBeLessThan(400);
    }
    for (const request of refused) {
      const answer = await send(method, path, request);
      expect(answer.status, `${key} ${request.label}`).toBe(422);
      expect(answer.body.errors?.map((e) => e.field).join(" "), `${key} ${request.label}`).toContain(request.field);
    }
    printed.push(
      `  ${key}: ${allowed.length} allowed accepted, ${refused.length} forbidden refused with 422 naming the field${refused.length === 0 ? " (no body or query: nothing the schema forbids)" : ""}`,
    );
  });
});

describe("the shipped validators", () => {
  it("are current with @octokit/openapi (the generator's --check)", () => {
    execFileSync(process.execPath, [join(here, "../scripts/generate-request-validators.mjs"), "--check"], { stdio: "pipe" });
  });

  it("need neither ajv nor the OpenAPI description at run time", () => {
    const dist = resolve(here, "../dist");
    const files = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".js"));
    for (const file of files)
      expect(readFileSync(join(dist, file), "utf8"), file).not.toMatch(/(from |require\()["'](ajv|@octokit\/openapi)/);
    const pkg = JSON.parse(readFileSync(resolve(here, "../package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).not.toContain("ajv");
  });
});

describe("leniency where the service is lenient", () => {
  it("reads a JSON body sent as form encoding or text/plain, and an empty body as no parameters", async () => {
    const auth = { authorization: `Bearer ${emu.tokens.admin}` };
    const form = await fetch(`${emu.url}/orgs/acme/artifacts/metadata/storage-record`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/x-www-form-urlencoded" },
      body: JSON.stringify({ name: "web", digest: DIGEST, registry_url: "https://reg.example.com/" }),
    });
    expect(form.status).toBe(200);
    const empty = await fetch(`${emu.url}/notifications`, {
      method: "PUT",
      headers: { authorization: `Bearer ${emu.tokens.classic}`, "content-type": "text/plain" },
      body: "",
    });
    expect(empty.status).toBe(205);
    const notJson = await fetch(`${emu.url}/notifications`, {
      method: "PUT",
      headers: { authorization: `Bearer ${emu.tokens.classic}` },
      body: "last_read_at=now",
    });
    expect(notJson.status).toBe(400);
  });
});
