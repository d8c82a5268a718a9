// Answers a real API server gives over HTTP: validation Status bodies, decoding, unknown fields, dryRun, the scale
// subresource, Table answers, selectors, media types.
import type { V1APIResourceList, V1Scale, V1Status } from "@kubernetes/client-node";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster, KubeObject } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawWatch } from "./kube-clients.js";
import PROTOBUF_BODIES from "./fixtures/protobuf-bodies.json" with { type: "json" };

const deployment = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image: "nginx:1.25" }] } },
    ...spec,
  },
});

/** An HTTP answer: status, headers, and the body as JSON of the type the reader names. */
interface Answer {
  status: number;
  headers: Headers;
  json<T>(): Promise<T>;
}

/** The fields the tests read from a Table answer. */
interface Table {
  kind: string;
  columnDefinitions: { name: string }[];
  rows: { cells: unknown[]; object: unknown }[];
}

describe("API server fidelity over HTTP", () => {
  let cluster: FakeCluster;
  /** fetch, with the body read as plain JSON of the type the caller names (a Status, an object). */
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    const response = await fetch(`${cluster.url}${path}`, {
      method,
      headers: { "Content-Type": "application/json", ...headers },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, json: <T>() => response.json() as Promise<T> };
  };
  const deployments = "/apis/apps/v1/namespaces/default/deployments";

  beforeAll(async () => {
    cluster = await startFakeCluster({ nodes: ["node-1"] });
    await call("POST", deployments, deployment("web"));
    await cluster.settle();
  });
  afterAll(async () => {
    await cluster.stop();
  });

  it("answers 422 Invalid with a cause per field, in the API server's words", async () => {
    const res = await call("POST", deployments, deployment("bad", { replicas: -5, selector: { matchLabels: { app: "other" } } }));
    expect(res.status).toBe(422);
    const status = await res.json<V1Status>();
    expect(status).toMatchObject({
      kind: "Status",
      status: "Failure",
      reason: "Invalid",
      code: 422,
      details: { name: "bad", group: "apps", kind: "Deployment" },
    });
    expect(status.message).toBe(
      'Deployment.apps "bad" is invalid: [spec.replicas: Invalid value: -5: must be greater than or equal to 0, spec.template.metadata.labels: Invalid value: {"app":"bad"}: `selector` does not match template `labels`]',
    );
    expect(status.details?.causes).toEqual([
      { reason: "FieldValueInvalid", field: "spec.replicas", message: "Invalid value: -5: must be greater than or equal to 0" },
      {
        reason: "FieldValueInvalid",
        field: "spec.template.metadata.labels",
        message: 'Invalid value: {"app":"bad"}: `selector` does not match template `labels`',
      },
    ]);
    expect(cluster.store.get("deployments", "default", "bad")).toBeUndefined();
  });

  it("answers 400 for a wrong type, never stores it, and never loops on it", async () => {
    const rv = cluster.store.resourceVersion();
    const res = await call("POST", deployments, deployment("three", { replicas: "three" }));
    expect(res.status).toBe(400);
    expect((await res.json<V1Status>()).message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    const patch = await call(
      "PATCH",
      `${deployments}/web`,
      { spec: { replicas: "three" } },
      { "Content-Type": "application/merge-patch+json" },
    );
    expect(patch.status).toBe(400);
    await cluster.settle();
    expect(cluster.store.resourceVersion()).toBe(rv);
  });

  it("answers 400 for absurdly deep JSON instead of failing inside", async () => {
    const deep = `{"metadata":{"name":"deep"},"data":{"k":"v"},"x":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    const res = await call("POST", "/api/v1/namespaces/default/configmaps", deep);
    expect(res.status).toBe(400);
    expect((await res.json<V1Status>()).message).toMatch(/exceeded max depth/);
  });

  it("drops unknown fields with a Warning header, refuses them with fieldValidation=Strict", async () => {
    const warned = await call("POST", deployments, deployment("unknown", { bogusField: 1 }));
    expect(warned.status).toBe(201);
    expect(warned.headers.get("warning")).toBe('299 - "unknown field \\"spec.bogusField\\""');
    expect((await warned.json<KubeObject>()).spec).not.toHaveProperty("bogusField");
    const strict = await call("POST", `${deployments}?fieldValidation=Strict`, deployment("strict", { bogusField: 1 }));
    expect(strict.status).toBe(400);
    expect((await strict.json<V1Status>()).message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.bogusField"',
    );
  });

  it("dryRun=All validates and answers but stores nothing and sends no watch event", async () => {
    const watch = await rawWatch(
      `${cluster.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${cluster.store.resourceVersion()}`,
    );
    const rv = cluster.store.resourceVersion();
    const created = await call("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", { metadata: { name: "dry" }, data: { k: "v" } });
    expect(created.status).toBe(201);
    expect((await created.json<KubeObject>()).metadata).toMatchObject({ name: "dry", namespace: "default" });
    const invalid = await call("POST", "/api/v1/namespaces/default/configmaps?dryRun=All", {
      metadata: { name: "dry" },
      data: { "a/b": "v" },
    });
    expect(invalid.status).toBe(422);
    const patched = await call(
      "PATCH",
      `${deployments}/web?dryRun=All`,
      { spec: { replicas: 7 } },
      { "Content-Type": "application/merge-patch+json" },
    );
    expect((await patched.json<KubeObject>()).spec?.replicas).toBe(7);
    const deleted = await call("DELETE", `${deployments}/web?dryRun=All`);
    expect(deleted.status).toBe(200);
    await call("POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "real" } });
    const events = await watch.until((e) => e.length > 0);
    watch.abort();
    expect(events[0]!.object.metadata.name).toBe("real");
    expect(Number(cluster.store.resourceVersion())).toBe(Number(rv) + 1);
    expect(cluster.store.get("deployments", "default", "web")!.spec!.replicas).toBe(1);
    expect(cluster.store.get("configmaps", "default", "dry")).toBeUndefined();
  });

  it("serves the scale subresource and 404 for subresources that do not exist", async () => {
    const scale = await (await call("GET", `${deployments}/web/scale`)).json<V1Scale>();
    expect(scale).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "web" },
      spec: { replicas: 1 },
      status: { selector: "app=web" },
    });
    const patched = await call(
      "PATCH",
      `${deployments}/web/scale`,
      { spec: { replicas: 2 } },
      { "Content-Type": "application/merge-patch+json" },
    );
    expect((await patched.json<V1Scale>()).spec?.replicas).toBe(2);
    const put = await call("PUT", `${deployments}/web/scale`, { ...scale, spec: { replicas: 3 } });
    expect(put.status).toBe(409); // the GET's resourceVersion is stale after the PATCH
    const negative = await call("PUT", `${deployments}/web/scale`, { metadata: { name: "web" }, spec: { replicas: -1 } });
    expect(negative.status).toBe(422);
    expect(cluster.store.get("deployments", "default", "web")!.spec!.replicas).toBe(2);
    expect((await call("GET", `${deployments}/web/bogus`)).status).toBe(404);
    expect((await call("GET", "/apis/apps/v1/namespaces/kube-system/daemonsets/x/scale")).status).toBe(404);
  });

  it("answers Tables with kubectl's columns", async () => {
    const res = await call("GET", `${deployments}?fieldSelector=metadata.name%3Dweb`, undefined, {
      Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
    });
    const table = await res.json<Table>();
    expect(table.kind).toBe("Table");
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
      "Name",
      "Ready",
      "Up-to-date",
      "Available",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
    expect(table.rows[0]!.cells.slice(0, 4)).toEqual(["web", expect.stringMatching(/^\d\/2$/), expect.any(Number), expect.any(Number)]);
    expect(table.rows[0]!.object).toMatchObject({ kind: "PartialObjectMetadata", metadata: { name: "web" } });
  });

  it("answers the metadata alone (PartialObjectMetadata) to reads and writes that ask for it, and the object otherwise", async () => {
    const metadataOnly = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";
    const path = "/api/v1/namespaces/default/configmaps";
    const body = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "pom" },
      binaryData: { blob: Buffer.alloc(4096).toString("base64") },
    };
    type Partial = { kind: string; apiVersion: string; metadata: { name: string; resourceVersion: string }; binaryData?: unknown };
    const created = await (await call("POST", path, body, { Accept: metadataOnly })).json<Partial>();
    expect(created).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: expect.objectContaining({ name: "pom" }),
    });
    const patched = await (
      await call("PATCH", `${path}/pom`, { data: { a: "b" } }, { Accept: metadataOnly, "Content-Type": "application/merge-patch+json" })
    ).json<Partial>();
    expect(patched.kind).toBe("PartialObjectMetadata");
    expect(Number(patched.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    const replaced = await (
      await call(
        "PUT",
        `${path}/pom`,
        { ...body, metadata: { name: "pom", resourceVersion: patched.metadata.resourceVersion } },
        { Accept: metadataOnly },
      )
    ).json<Partial>();
    expect(replaced.kind).toBe("PartialObjectMetadata");
    // The object itself when asked for JSON without a transformation, and when the first choice is one it cannot serve.
    expect((await (await call("GET", `${path}/pom`)).json<Partial>()).binaryData).toBeDefined();
    const read = await (
      await call("GET", `${path}/pom`, undefined, { Accept: "application/json;as=Unknown;g=meta.k8s.io;v=v1,application/json" })
    ).json<Partial>();
    expect(read.kind).toBe("ConfigMap");
    const v1beta1 = await (
      await call("GET", `${path}/pom`, undefined, { Accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1" })
    ).json<Partial>();
    expect(v1beta1.apiVersion).toBe("meta.k8s.io/v1beta1");
    // A list asks for PartialObjectMetadataList.
    const list = await (
      await call("GET", path, undefined, { Accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1" })
    ).json<{ kind: string; items: Partial[] }>();
    expect(list.kind).toBe("PartialObjectMetadataList");
    // Either metadata kind passes negotiation; the one that does not fit is 406, before anything is written.
    const notAcceptable = await call(
      "POST",
      path,
      { ...body, metadata: { name: "pom-2" } },
      {
        Accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
      },
    );
    expect(notAcceptable.status).toBe(406);
    expect((await notAcceptable.json<V1Status>()).reason).toBe("NotAcceptable");
    expect((await call("GET", `${path}/pom-2`)).status).toBe(404);
    expect((await call("GET", path, undefined, { Accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1" })).status).toBe(
      406,
    );
    // A metadata-only watch (client-go's metadata informer asks for PartialObjectMetadata): every event carries metadata alone.
    const watch = await rawWatch(`${cluster.url}${path}?watch=true&resourceVersion=${patched.metadata.resourceVersion}`, {
      Accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json",
    });
    await call("PATCH", `${path}/pom`, { data: { c: "d" } }, { "Content-Type": "application/merge-patch+json" });
    await watch.until((events) => events.length > 0);
    expect(watch.events[0]).toMatchObject({ type: "MODIFIED", object: { kind: "PartialObjectMetadata", metadata: { name: "pom" } } });
    expect(Object.keys(watch.events[0]!.object as object).sort()).toEqual(["apiVersion", "kind", "metadata"]);
    watch.abort();
    expect(list.items.find((i) => i.metadata.name === "pom")).toEqual({
      kind: "PartialObjectMetadata",
      apiVersion: "meta.k8s.io/v1",
      metadata: expect.anything(),
    });
  });

  it("answers 400 for invalid label selectors and unsupported field selectors, in each kind's words", async () => {
    for (const selector of ["app=-bad-", `app=${"v".repeat(64)}`, "app=web,"]) {
      expect((await call("GET", `/api/v1/pods?labelSelector=${encodeURIComponent(selector)}`)).status, selector).toBe(400);
    }
    // labels.Parse reads "()" as (""): a selector, not an error.
    expect((await call("GET", `/api/v1/pods?labelSelector=${encodeURIComponent("app in ()")}`)).status).toBe(200);
    const refusal = async (path: string) => {
      const res = await call("GET", path);
      return { status: res.status, message: (await res.json<V1Status>()).message };
    };
    // The kind's own field-label conversion words the refusal; kinds without one get the scheme's default.
    expect(await refusal("/api/v1/pods?fieldSelector=spec.containers.image%3Dx")).toEqual({
      status: 400,
      message: "field label not supported: spec.containers.image",
    });
    expect(await refusal("/apis/apps/v1/deployments?fieldSelector=status.replicas%3D1")).toEqual({
      status: 400,
      message: '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    });
    expect(await refusal("/apis/apps/v1/replicasets?fieldSelector=status.replicas%3D1")).toMatchObject({ status: 400 });
    expect(await refusal("/apis/batch/v1/jobs?fieldSelector=spec.parallelism%3D1")).toEqual({
      status: 400,
      message: 'field label "spec.parallelism" not supported for Job',
    });
    expect((await call("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1")).status).toBe(200);
  });

  it("applies JSON Patch by value (member order does not matter) and refuses a leading-zero index", async () => {
    const path = "/api/v1/namespaces/default/configmaps";
    await call("POST", path, { metadata: { name: "jp", labels: { a: "1", b: "2" } } });
    const jsonPatch = (ops: unknown) => call("PATCH", `${path}/jp`, ops, { "Content-Type": "application/json-patch+json" });
    expect((await jsonPatch([{ op: "test", path: "/metadata/labels", value: { b: "2", a: "1" } }])).status).toBe(200);
    expect((await jsonPatch([{ op: "add", path: "/metadata/finalizers", value: ["x/a", "x/b"] }])).status).toBe(200);
    expect((await jsonPatch([{ op: "replace", path: "/metadata/finalizers/01", value: "x/c" }])).status).toBe(422);
    expect((await jsonPatch([{ op: "bogus", path: "/a" }])).status).toBe(400);
  });

  it("reads protobuf bodies (client-go's typed clients send them), and refuses server-side apply with 415 and says so", async () => {
    const protobuf = { "Content-Type": "application/vnd.kubernetes.protobuf" };
    const created = await fetch(`${cluster.url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers: protobuf,
      body: Buffer.from(PROTOBUF_BODIES.configmap.protobuf, "base64"),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      metadata: { name: "c1", labels: { app: "web", tier: "" } },
      data: { k: "v", empty: "" },
      immutable: false,
    });
    const malformed = await call("POST", "/api/v1/namespaces/default/configmaps", "k8s\0\x0a\x7f", protobuf);
    expect(malformed.status).toBe(400);
    expect((await malformed.json<V1Status>()).message).toMatch(/^the request body is not valid protobuf: /);
    const apply = await call("PATCH", `${deployments}/web?fieldManager=me`, "{}", { "Content-Type": "application/apply-patch+yaml" });
    expect(apply.status).toBe(415);
    expect((await apply.json<V1Status>()).message).toMatch(/server-side apply .* is not supported/);
  });

  it("lists short names, the all category and the scale subresource in discovery", async () => {
    const apps = await (await call("GET", "/apis/apps/v1")).json<V1APIResourceList>();
    const byName = new Map(apps.resources.map((r) => [r.name, r]));
    expect(byName.get("deployments")).toMatchObject({ shortNames: ["deploy"], categories: ["all"] });
    expect(byName.get("deployments/scale")).toMatchObject({ kind: "Scale", group: "autoscaling", version: "v1" });
    const core = await (await call("GET", "/api/v1")).json<V1APIResourceList>();
    expect(core.resources.find((r) => r.name === "namespaces")?.shortNames).toEqual(["ns"]);
  });
});
