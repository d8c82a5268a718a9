// The chart's `auth` choice: a token Secret or an App installation, exactly one, each rendering what the controller
// reads; RBAC the same either way.
import { writeFileSync } from "node:fs";
import { generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import { loadConfig } from "@shiplog/controller";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, renderChart, type Manifest } from "./chart/helm.js";
import { grants, one, type Container } from "./chart/kube-manifests.js";
import { tempDir } from "./kit/temp-dir.js";

const REQUIRED = { config: { org: "acme", cluster: "prod-eu-1", logicalEnvironment: "production" } };
const RELEASE = { releaseName: "shiplog", namespace: "shiplog" } as const;
const APP = { auth: { app: { id: 123456, existingSecret: "shiplog-app-key" } } };

type Deployment = Manifest & {
  spec: {
    template: {
      spec: {
        containers: Container[];
        volumes: { name: string; secret?: { secretName: string; items: { key: string; path: string }[] } }[];
      };
    };
  };
};

describe("Helm chart: auth", () => {
  const render = (...values: object[]) => renderChart({ ...RELEASE, values: [REQUIRED, ...values] });
  const notes = (...values: object[]) =>
    renderChart({ ...RELEASE, values: [REQUIRED, ...values], notes: true }).stdout.replace(/\s+/g, " ");
  const manifests = (...values: object[]) => {
    const result = render(...values);
    if (!result.ok) throw new Error(result.stderr);
    return result.manifests;
  };
  const envOf = (m: Manifest[]) =>
    Object.fromEntries(
      (one<Deployment>(m, "Deployment").spec.template.spec.containers[0]!.env ?? [])
        .filter((e) => e.value !== undefined)
        .map((e) => [e.name, e.value!]),
    );

  it("an App: the private key Secret mounted as a file, the App settings in the environment, no token anywhere", () => {
    const m = manifests(APP, { auth: { app: { installationId: 3001 } } });
    const env = envOf(m);
    expect(env).toMatchObject({
      SHIPLOG_APP_ID: "123456",
      SHIPLOG_APP_INSTALLATION_ID: "3001",
      SHIPLOG_APP_PRIVATE_KEY_FILE: "/var/run/secrets/shiplog-app/private-key.pem",
    });
    expect(env.SHIPLOG_TOKEN_FILE).toBeUndefined();
    const deployment = one<Deployment>(m, "Deployment");
    expect(deployment.spec.template.spec.volumes.find((v) => v.secret)!.secret).toMatchObject({
      secretName: "shiplog-app-key",
      items: [{ key: "private-key.pem", path: "private-key.pem" }],
    });
    expect(m.some((x) => x.kind === "Secret")).toBe(false);

    // What the controller makes of that environment, with the key file where the chart mounts it.
    const dir = tempDir("shiplog-chart-app-");
    const keyFile = join(dir, "private-key.pem");
    writeFileSync(keyFile, generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }));
    const config = loadConfig([], { ...env, SHIPLOG_APP_PRIVATE_KEY_FILE: keyFile });
    expect(config.app).toMatchObject({ appId: "123456", installationId: 3001, privateKeyFile: keyFile });
  });

  it("an App without an installation id: found from the organization, as NOTES say", () => {
    const result = render(APP);
    expect(result.ok).toBe(true);
    expect(envOf(result.manifests).SHIPLOG_APP_INSTALLATION_ID).toBeUndefined();
    expect(notes(APP)).toContain("installation found from organization acme");
    expect(notes(APP)).toContain("the artifact-metadata endpoints refuse a personal access token (classic)");
  });

  it("a token: today's token file, NOTES name the token kinds that work", () => {
    const result = render({ token: { existingSecret: "shiplog-api-token" } });
    expect(result.ok).toBe(true);
    expect(envOf(result.manifests).SHIPLOG_TOKEN_FILE).toBe("/var/run/secrets/shiplog/token");
    expect(notes({ token: { existingSecret: "shiplog-api-token" } })).toContain(
      "the artifact-metadata endpoints refuse a personal access token (classic): use a fine-grained personal access token or an App installation, with the Artifact metadata permission (write) on every repository the controller records",
    );
  });

  it.each([
    [[APP, { token: { existingSecret: "shiplog-api-token" } }], "token.existingSecret"],
    [[APP, { token: { value: "t0ken" } }], "token.value"],
    [[{ auth: { app: { id: 123456 } } }], "auth.app.existingSecret"],
    [[{ auth: { app: { existingSecret: "shiplog-app-key" } } }], "auth.app.id"],
    [
      [],
      "token: set token.existingSecret (the name of a Secret holding the API token) or token.value, or authenticate as an App (auth.app.id and auth.app.existingSecret)",
    ],
  ])("refuses %j, naming %s", (values, key) => {
    const result = render(...(values as object[]));
    expect(result.ok).toBe(false);
    expect(result.stderr).toContain(key);
  });

  it("grants the same RBAC in either mode", () => {
    expect(grants(manifests(APP))).toEqual(grants(manifests({ token: { value: "t0ken" } })));
  });

  it("the chart's README and NOTES use the controller's own words for a classic token", async () => {
    const { readFileSync } = await import("node:fs");
    const readme = readFileSync(join(REPO_ROOT, "charts/shiplog-controller/README.md"), "utf8").replace(/\s+/g, " ");
    expect(readme).toContain(
      "the artifact-metadata endpoints refuse a personal access token (classic): use a fine-grained personal access token or an App installation, with the Artifact metadata permission (write) on every repository the controller records",
    );
  });
});
