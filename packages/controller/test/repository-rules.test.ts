// The repository rules with plain data: their order, each rule's matching, the setting's parser, the fix an
// operator is told, and the desired state they give (computeDesiredState over plain objects).
import { readFileSync } from "node:fs";
import { ConfigError, loadConfig } from "@shiplog/controller";
import { computeDesiredState } from "@shiplog/controller/internal";
import { describe, expect, it } from "vitest";
import {
  mappedRepository,
  namespaceRepository,
  parseImageRepositories,
  refusedUnlinked,
  registryRepository,
  resolveRepository,
  unlinkedFix,
  type RepositoryRules,
} from "../src/mapping/repository-rules.js";
import { MAPPING, deploymentWithPods, snapshot } from "./kube-fixtures.js";

const RULES: RepositoryRules = {
  org: "acme",
  imageRepositories: [
    { prefix: "registry.example.com/team-a", repository: "web" },
    { prefix: "registry.example.com/team-a/tools", repository: "infra" },
    { prefix: "docker.io/library/nginx", repository: "api" },
  ],
  registryHost: "ghcr.io",
};

describe("resolveRepository", () => {
  it("takes the first rule that names one: annotation, namespace, image mapping, registry", () => {
    const image = "ghcr.io/acme/web";
    expect(resolveRepository({ annotation: "api", namespace: "infra", image }, RULES)).toEqual({ repository: "api", source: "annotation" });
    expect(resolveRepository({ namespace: "infra", image }, RULES)).toEqual({ repository: "infra", source: "namespace" });
    expect(resolveRepository({ image: "docker.io/library/nginx" }, RULES)).toEqual({ repository: "api", source: "image-mapping" });
    expect(resolveRepository({ image }, RULES)).toEqual({ repository: "web", source: "registry" });
    expect(resolveRepository({ image: "docker.io/library/redis" }, RULES)).toBeUndefined();
  });

  it("an annotation that names none on purpose (null) stops there", () => {
    expect(resolveRepository({ annotation: null, namespace: "infra", image: "ghcr.io/acme/web" }, RULES)).toBeUndefined();
  });
});

describe("mappedRepository", () => {
  it("matches at a '/' boundary, the longest prefix winning", () => {
    expect(mappedRepository("registry.example.com/team-a/cart", RULES.imageRepositories)).toBe("web");
    expect(mappedRepository("registry.example.com/team-a/tools/lint", RULES.imageRepositories)).toBe("infra");
    expect(mappedRepository("registry.example.com/team-a", RULES.imageRepositories)).toBe("web");
    expect(mappedRepository("registry.example.com/team-ab/cart", RULES.imageRepositories)).toBeUndefined();
  });
});

describe("registryRepository", () => {
  it("names <repository> of <host>/<org>/<repository>[/...] for the organization only", () => {
    expect(registryRepository("ghcr.io/acme/web", "ghcr.io", "acme")).toBe("web");
    expect(registryRepository("ghcr.io/ACME/web/sub", "ghcr.io", "acme")).toBe("web");
    expect(registryRepository("ghcr.io/globex/portal", "ghcr.io", "acme")).toBeUndefined();
    expect(registryRepository("ghcr.io/acme", "ghcr.io", "acme")).toBeUndefined();
    expect(registryRepository("docker.io/acme/web", "ghcr.io", "acme")).toBeUndefined();
    expect(registryRepository("ghcr.io/acme/web", "", "acme")).toBeUndefined();
  });
});

describe("namespaceRepository", () => {
  it("reads the annotation, then the label; an invalid name is no name", () => {
    expect(namespaceRepository({ labels: { "shiplog.dev/repository": "web" } })).toBe("web");
    expect(namespaceRepository({ labels: { "shiplog.dev/repository": "web" }, annotations: { "shiplog.dev/repository": "api" } })).toBe(
      "api",
    );
    expect(
      namespaceRepository({ annotations: { "shiplog.dev/repository": "not a repo" }, labels: { "shiplog.dev/repository": "web" } }),
    ).toBe("web");
    expect(namespaceRepository({})).toBeUndefined();
  });
});

describe("parseImageRepositories", () => {
  it("reads <prefix>=<repository> pairs, prefixes normalised as image names", () => {
    expect(parseImageRepositories(" registry.example.com/team-a/=web, nginx=api ,localhost:5000=infra,")).toEqual({
      ok: true,
      value: [
        { prefix: "registry.example.com/team-a", repository: "web" },
        { prefix: "docker.io/library/nginx", repository: "api" },
        { prefix: "localhost:5000", repository: "infra" },
      ],
    });
    expect(parseImageRepositories("")).toEqual({ ok: true, value: [] });
  });

  it("refuses what is not a pair, a bad repository, a tag, a prefix given twice, naming it", () => {
    expect(parseImageRepositories("ghcr.io/acme")).toEqual({ ok: false, reason: '"ghcr.io/acme" is not <image name prefix>=<repository>' });
    expect(parseImageRepositories("ghcr.io/acme=a b")).toMatchObject({ ok: false, reason: expect.stringContaining('repository "a b"') });
    expect(parseImageRepositories("nginx:1.25=web")).toMatchObject({ ok: false, reason: expect.stringContaining('"nginx:1.25"') });
    expect(parseImageRepositories("nginx=web,docker.io/library/nginx=api")).toEqual({
      ok: false,
      reason: 'prefix "docker.io/library/nginx" is mapped twice',
    });
  });
});

describe("unlinked records", () => {
  it("a deployed entry refused not_found without a repository is unlinked; with one, or for another cause, it is not", () => {
    expect(refusedUnlinked({ status: "deployed" }, "not_found")).toBe(true);
    expect(refusedUnlinked({ status: "deployed", github_repository: "web" }, "not_found")).toBe(false);
    expect(refusedUnlinked({ status: "deployed" }, "unauthorized")).toBe(false);
    expect(refusedUnlinked({ status: "decommissioned" }, "not_found")).toBe(false);
  });

  it("the fix names the workload, the image and every setting that links it", () => {
    const fix = unlinkedFix({ kind: "Deployment", namespace: "shop", name: "cart" }, "docker.io/library/redis", RULES);
    expect(fix).toContain("Deployment shop/cart runs docker.io/library/redis");
    expect(fix).toContain("shiplog.dev/repository: <repository>");
    expect(fix).toContain("namespace shop");
    expect(fix).toContain(
      "--image-repositories / SHIPLOG_IMAGE_REPOSITORIES, chart config.imageRepositories: docker.io/library/redis=<repository>",
    );
    expect(fix).toContain("ghcr.io/acme/<repository>");
    expect(unlinkedFix({ kind: "Deployment", namespace: "shop", name: "cart" }, "x", { ...RULES, registryHost: "" })).not.toContain(
      "ghcr.io",
    );
  });
});

describe("the desired state with the rules", () => {
  const GHCR_ID = `ghcr.io/acme/web@sha256:${"e".repeat(64)}`;
  const web = deploymentWithPods("web", { image: "ghcr.io/acme/web:2.0", imageID: GHCR_ID });
  const cart = deploymentWithPods("cart", { namespace: "store" });
  const lone = deploymentWithPods("lone", {
    namespace: "other",
    image: "redis:7",
    imageID: `docker.io/library/redis@sha256:${"f".repeat(64)}`,
  });
  const annotated = deploymentWithPods("old", { namespace: "other", annotations: { "shiplog.dev/repository": "infra" } });
  const objects = {
    pods: [...web.pods, ...cart.pods, ...lone.pods, ...annotated.pods],
    workloads: [...web.workloads, ...cart.workloads, ...lone.workloads, ...annotated.workloads],
  };
  const repositories = (desired: ReturnType<typeof computeDesiredState>) =>
    Object.fromEntries([...desired.records.values()].map((r) => [r.entry.deployment_name, r.entry.github_repository ?? null]));

  it("each record gets the repository of the first rule that names one", () => {
    const desired = computeDesiredState(snapshot(objects), {
      ...MAPPING,
      repositories: {
        rules: { org: "acme", imageRepositories: [{ prefix: "docker.io/library/nginx", repository: "api" }], registryHost: "ghcr.io" },
        namespaceRepository: (namespace) => (namespace === "store" ? "web" : undefined),
      },
    });
    expect(repositories(desired)).toEqual({
      "shop-web-app": "web", // the registry's image names it
      "store-cart-app": "web", // the namespace, before the mapping's "api"
      "other-lone-app": null, // nothing links redis
      "other-old-app": "infra", // the workload's annotation, before the mapping
    });
  });

  it("without rules, only the annotation names one (as before)", () => {
    expect(repositories(computeDesiredState(snapshot(objects), MAPPING))).toEqual({
      "shop-web-app": null,
      "store-cart-app": null,
      "other-lone-app": null,
      "other-old-app": "infra",
    });
  });
});

describe("the settings", () => {
  const ENV = { SHIPLOG_TOKEN: "t", SHIPLOG_ORG: "acme", SHIPLOG_CLUSTER: "c", SHIPLOG_LOGICAL_ENVIRONMENT: "production" };
  const lines = (env: Record<string, string>): string[] => {
    try {
      loadConfig([], { ...ENV, ...env });
    } catch (error) {
      if (error instanceof ConfigError) return error.message.split("\n");
      throw error;
    }
    return [];
  };

  it("defaults: no mapping, the service's registry ghcr.io; off turns the registry rule off", () => {
    expect(loadConfig([], ENV)).toMatchObject({ imageRepositories: [], registryHost: "ghcr.io" });
    expect(loadConfig(["--registry-host", "off"], ENV).registryHost).toBe("");
    expect(loadConfig([], { ...ENV, SHIPLOG_REGISTRY_HOST: "Registry.Example.com:5000" }).registryHost).toBe("registry.example.com:5000");
    expect(loadConfig(["--image-repositories", "registry.example.com/team-a=web"], ENV).imageRepositories).toEqual([
      { prefix: "registry.example.com/team-a", repository: "web" },
    ]);
  });

  it("bad input: one line naming the setting and the rule, code invalid_config", () => {
    expect(lines({ SHIPLOG_IMAGE_REPOSITORIES: "registry.example.com/team-a" })).toEqual([
      'invalid configuration: --image-repositories / SHIPLOG_IMAGE_REPOSITORIES: "registry.example.com/team-a" is not <image name prefix>=<repository> [rule: comma list of <image name prefix>=<repository>]',
    ]);
    expect(lines({ SHIPLOG_REGISTRY_HOST: "https://ghcr.io" })).toEqual([
      'invalid configuration: --registry-host / SHIPLOG_REGISTRY_HOST: must be a registry host name (with an optional :port) or "off" [rule: host[:port] or off]',
    ]);
    expect(() => loadConfig([], { ...ENV, SHIPLOG_REGISTRY_HOST: "a b" })).toThrow(expect.objectContaining({ code: "invalid_config" }));
  });
});

describe("the chart's check of config.imageRepositories", () => {
  const schema = JSON.parse(readFileSync(new URL("../../../charts/shiplog-controller/values.schema.json", import.meta.url), "utf8")) as {
    properties: { config: { properties: { imageRepositories: { propertyNames: { pattern: string } } } } };
  };
  const pattern = new RegExp(schema.properties.config.properties.imageRepositories.propertyNames.pattern);

  it("takes a prefix exactly when the controller's parser does", () => {
    const prefixes = [
      ...["nginx", "library/nginx", "docker.io/library/nginx", "registry.example.com/team-a", "registry.example.com/team-a/"],
      ...["localhost", "localhost:5000", "ghcr.io", "ghcr.io:443/acme", "team-a:5000/x", "a_b/c", "Abc/def", "Registry.Example.com/a"],
      ...["nginx:1.25", "team-a:5000", "Nginx", "ghcr.io/Acme/x", "a b", "-bad", "a//b", "ghcr.io/acme/web@sha256:aa", ""],
    ];
    for (const prefix of prefixes) expect(pattern.test(prefix), prefix).toBe(parseImageRepositories(`${prefix}=web`).ok && prefix !== "");
  });
});
