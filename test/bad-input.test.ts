import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestValidationError, ShiplogClient } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

const good = `sha256:${"a".repeat(64)}`;
let emulator: Emulator;
let client: ShiplogClient;

beforeAll(async () => {
  emulator = await startEmulator();
  client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin });
});
afterAll(() => emulator.stop());

const entry = { name: "web", digest: good, deployment_name: "web" };
const cluster = { org: "acme", cluster: "c1", logical_environment: "prod" };

// Each case: the call, the field the error must name, and a word of the rule.
const cases: [string, () => Promise<unknown>, string, RegExp][] = [
  [
    "a digest in another algorithm",
    () => client.artifacts.createStorageRecord({ org: "acme", name: "x", digest: `md5:${"a".repeat(32)}`, registry_url: "https://r/" }),
    "digest",
    /pattern/,
  ],
  [
    "an upper-case hex digest",
    () => client.artifacts.setClusterDeploymentRecords({ ...cluster, deployments: [{ ...entry, digest: `sha256:${"A".repeat(64)}` }] }),
    "deployments[0].digest",
    /pattern/,
  ],
  [
    "a name over 256 characters",
    () => client.artifacts.createStorageRecord({ org: "acme", name: "n".repeat(257), digest: good, registry_url: "https://r/" }),
    "name",
    /maxLength 256/,
  ],
  [
    "a version over 100 characters",
    () => client.artifacts.setClusterDeploymentRecords({ ...cluster, deployments: [{ ...entry, version: "v".repeat(101) }] }),
    "deployments[0].version",
    /maxLength 100/,
  ],
  [
    "a deployment_name repeated within a call",
    () =>
      client.artifacts.setClusterDeploymentRecords({ ...cluster, deployments: [entry, { ...entry, digest: `sha256:${"b".repeat(64)}` }] }),
    "deployments[1].deployment_name",
    /unique/,
  ],
  [
    "an unknown runtime risk",
    () => client.artifacts.setClusterDeploymentRecords({ ...cluster, deployments: [{ ...entry, runtime_risks: ["on-fire" as never] }] }),
    "deployments[0].runtime_risks[0]",
    /one of critical-resource/,
  ],
  [
    "a repeated runtime risk",
    () =>
      client.artifacts.setClusterDeploymentRecords({
        ...cluster,
        deployments: [{ ...entry, runtime_risks: ["sensitive-data", "sensitive-data"] }],
      }),
    "deployments[0].runtime_risks",
    /uniqueItems/,
  ],
  [
    "an unknown deployment status",
    () => client.artifacts.setClusterDeploymentRecords({ ...cluster, deployments: [{ ...entry, status: "running" as never }] }),
    "deployments[0].status",
    /one of deployed, decommissioned/,
  ],
  [
    "an unknown storage status",
    () =>
      client.artifacts.createStorageRecord({ org: "acme", name: "x", digest: good, registry_url: "https://r/", status: "gone" as never }),
    "status",
    /one of active, inactive, eol, deleted/,
  ],
  [
    "a plain-http registry URL",
    () => client.artifacts.createStorageRecord({ org: "acme", name: "x", digest: good, registry_url: "http://r/" }),
    "registry_url",
    /pattern/,
  ],
  [
    "a missing logical environment",
    () => client.artifacts.setClusterDeploymentRecords({ org: "acme", cluster: "c1", deployments: [entry] } as never),
    "logical_environment",
    /required/,
  ],
  [
    "a cluster name with a space",
    () => client.artifacts.setClusterDeploymentRecords({ ...cluster, cluster: "prod 1", deployments: [entry] }),
    "cluster",
    /pattern/,
  ],
  [
    "an empty deployments list",
    () => client.artifacts.setClusterDeploymentRecords({ ...cluster, deployments: [] }),
    "deployments",
    /minItems 1/,
  ],
  [
    "a github_repository with a slash",
    () =>
      client.artifacts.createDeploymentRecord({
        org: "acme",
        name: "x",
        digest: good,
        status: "deployed",
        logical_environment: "p",
        deployment_name: "d",
        github_repository: "acme/web",
      }),
    "github_repository",
    /pattern/,
  ],
  [
    "six tags on the single-record call",
    () =>
      client.artifacts.createDeploymentRecord({
        org: "acme",
        name: "x",
        digest: good,
        status: "deployed",
        logical_environment: "p",
        deployment_name: "d",
        tags: { a: "1", b: "2", c: "3", d: "4", e: "5", f: "6" },
      }),
    "tags",
    /maxProperties 5/,
  ],
  [
    "a misspelt field",
    () =>
      client.artifacts.createStorageRecord({ org: "acme", name: "x", digest: good, registry_url: "https://r/", registy: "typo" } as never),
    "registy",
    /no unknown fields/,
  ],
  [
    "a listing digest that is not sha256",
    () => client.artifacts.listStorageRecords({ org: "acme", subject_digest: "latest" }),
    "subject_digest",
    /pattern/,
  ],
];

describe("bad input is refused before anything is sent", () => {
  it.each(cases)("%s", async (_label, call, field, rule) => {
    emulator.requests.clear();
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RequestValidationError);
    const issues = (error as RequestValidationError).issues;
    const issue = issues.find((i) => i.field === field);
    expect(issue, `issues: ${JSON.stringify(issues)}`).toBeDefined();
    expect(`${issue!.rule} ${issue!.message}`).toMatch(rule);
    expect((error as Error).message).toContain(field);
    expect((error as RequestValidationError).code).toBe("invalid_request");
    expect(emulator.requests.count()).toBe(0);
  });

  it("a bad entry past the first 1000 stops the whole call: no chunk is sent", async () => {
    emulator.requests.clear();
    const deployments = Array.from({ length: 1500 }, (_, i) => ({ ...entry, deployment_name: `d${i}` }));
    deployments[1400] = { ...deployments[1400]!, digest: "sha256:short" };
    await expect(client.artifacts.setClusterDeploymentRecords({ ...cluster, deployments })).rejects.toThrow(/deployments\[1400\]\.digest/);
    expect(emulator.requests.count()).toBe(0);
  });
});
