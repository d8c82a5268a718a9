// The fake cluster checked against a real API server (test/kit/control-plane.ts), request by request: the same
// requests go to both, in namespaces made alike, and what each answers is compared after normalising only what
// legitimately differs (uids, timestamps, resourceVersions, generated names). The probes: the API server's rules
// the fake once missed, and the request shapes the controller makes (kube/transport.ts and kube/reflector.ts: paged lists
// with a label selector, watches with bookmarks and timeoutSeconds, resourceVersions ahead of the server;
// election/lease-lock.ts: the Lease's create, read and conditional replace; state/configmaps.ts: create, replace and
// conditional merge patch asked for the metadata alone, writes to a ConfigMap that is gone). The requests recorded
// from a controller scenario are compared by controller-requests.real.test.ts.
// It prints "n of m agree" with each difference; the differences accepted are listed, with their reasons, in the
// fake cluster's README ("Differences from a real API server"), and the test fails when another probe differs or a
// listed one agrees.
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startControlPlane, type ControlPlane } from "../../../test/kit/control-plane.js";

interface Answer {
  status: number;
  body: unknown;
  headers: Record<string, string | string[] | undefined>;
}
type Send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;

/** One probe: requests made alike on both, and what of the last answer(s) must agree. */
interface Probe {
  name: string;
  run(send: Send, ns: string): Promise<unknown>;
}

type Obj = {
  kind?: string;
  reason?: string;
  code?: number;
  metadata?: Record<string, unknown>;
  items?: Obj[];
  data?: Record<string, string>;
  details?: { causes?: { field?: string }[] };
};
const json = { "content-type": "application/json" };
const status = (a: Answer) => {
  const b = a.body as Obj;
  return { status: a.status, kind: b?.kind, reason: b?.reason };
};
const configMap = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, ...extra },
  data: { a: "1" },
});
const deploymentOf = (name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name },
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx:1.27" }] } },
  },
});
/** Both servers hear the same client: the field manager of writes without fieldManager comes from it. */
const UA = { "user-agent": "shiplog-probe/1.0 (linux)" };
const MERGE = { "content-type": "application/merge-patch+json" };
const METADATA_ONLY = { accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json" };
const lease = (name: string) => ({
  apiVersion: "coordination.k8s.io/v1",
  kind: "Lease",
  metadata: { name },
  spec: { holderIdentity: "a", leaseDurationSeconds: 15 },
});

const PROBES: Probe[] = [
  {
    name: "resourceVersionMatch without resourceVersion: 422",
    run: async (send, ns) => status(await send("GET", `/api/v1/namespaces/${ns}/configmaps?resourceVersionMatch=NotOlderThan`)),
  },
  {
    name: "a Lease update without resourceVersion: 422 (Leases refuse unconditional updates)",
    run: async (send, ns) => {
      await send("POST", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, lease("l1"));
      return status(await send("PUT", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l1`, lease("l1")));
    },
  },
  {
    name: "a created Lease has no metadata.generation",
    run: async (send, ns) => {
      const created = await send("POST", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, lease("l2"));
      return { status: created.status, generation: (created.body as Obj).metadata?.generation ?? null };
    },
  },
  {
    name: "an update that changes nothing keeps the resourceVersion",
    run: async (send, ns) => {
      const created = (await send("POST", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, lease("l3"))).body as Obj;
      const version = created.metadata?.resourceVersion as string;
      const same = { ...lease("l3"), metadata: { name: "l3", resourceVersion: version } };
      const updated = (await send("PUT", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l3`, same)).body as Obj;
      return { kept: updated.metadata?.resourceVersion === version };
    },
  },
  {
    name: "a Lease update with a stale resourceVersion: 409 Conflict",
    run: async (send, ns) => {
      const created = (await send("POST", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, lease("l4"))).body as Obj;
      const version = created.metadata?.resourceVersion as string;
      const holder = (who: string) => ({
        ...lease("l4"),
        metadata: { name: "l4", resourceVersion: version },
        spec: { holderIdentity: who, leaseDurationSeconds: 15 },
      });
      await send("PUT", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l4`, holder("b"));
      return status(await send("PUT", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/l4`, holder("c")));
    },
  },
  {
    name: "no finalizer may be added to an object being deleted: 422",
    run: async (send, ns) => {
      await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("fin", { finalizers: ["example.com/a"] }));
      await send("DELETE", `/api/v1/namespaces/${ns}/configmaps/fin`);
      const current = (await send("GET", `/api/v1/namespaces/${ns}/configmaps/fin`)).body as Obj;
      const body = { ...current, metadata: { ...current.metadata, finalizers: ["example.com/a", "example.com/b"] } };
      const answer = status(await send("PUT", `/api/v1/namespaces/${ns}/configmaps/fin`, body));
      // Let it go: without the finalizer the object is removed.
      const now = (await send("GET", `/api/v1/namespaces/${ns}/configmaps/fin`)).body as Obj;
      await send("PUT", `/api/v1/namespaces/${ns}/configmaps/fin`, { ...now, metadata: { ...now.metadata, finalizers: [] } });
      return answer;
    },
  },
  {
    name: "a request body over 3 MiB: 413",
    run: async (send, ns) => {
      const big = { ...configMap("big"), data: { a: "x".repeat(3.5 * 1024 * 1024) } };
      return { status: (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, big)).status };
    },
  },
  {
    name: "a fieldManager over 128 characters: 422",
    run: async (send, ns) =>
      status(await send("POST", `/api/v1/namespaces/${ns}/configmaps?fieldManager=${"m".repeat(200)}`, configMap("fm"))),
  },
  {
    name: "a write records managedFields",
    run: async (send, ns) => {
      const created = (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("mf"))).body as Obj;
      return { managedFields: Array.isArray(created.metadata?.managedFields) };
    },
  },
  {
    name: "managedFields of the state store's writes: create, replace, merge patch by another manager, a key removed",
    run: async (send, ns) => {
      const path = `/api/v1/namespaces/${ns}/configmaps`;
      const steps: unknown[] = [];
      const created = (
        await send(
          "POST",
          path,
          { ...configMap("mf2", { labels: { app: "shiplog" } }), data: { k1: "v", k2: "v" }, binaryData: { b: "AAAA" } },
          UA,
        )
      ).body as Obj;
      steps.push(managed(created));
      const replaced = (
        await send(
          "PUT",
          `${path}/mf2`,
          {
            ...configMap("mf2", { labels: { app: "shiplog" }, resourceVersion: created.metadata?.resourceVersion }),
            data: { k1: "v", k2: "w" },
          },
          UA,
        )
      ).body as Obj;
      steps.push(managed(replaced));
      const patched = (await send("PATCH", `${path}/mf2?fieldManager=other`, JSON.stringify({ data: { k1: "x", k3: "z" } }), MERGE))
        .body as Obj;
      steps.push(managed(patched));
      const removed = (await send("PATCH", `${path}/mf2`, JSON.stringify({ data: { k3: null } }), { ...MERGE, ...UA })).body as Obj;
      steps.push(managed(removed));
      return steps;
    },
  },
  {
    name: "managedFields of a Lease (the leader lock), and of a write that leaves them out (kept)",
    run: async (send, ns) => {
      const path = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
      const created = (
        await send("POST", path, { ...lease("mfl"), spec: { ...lease("mfl").spec, renewTime: "2026-01-01T00:00:00.000000Z" } }, UA)
      ).body as Obj;
      const body = {
        ...lease("mfl"),
        metadata: { name: "mfl", resourceVersion: created.metadata?.resourceVersion },
        spec: { holderIdentity: "b", leaseDurationSeconds: 15 },
      };
      const updated = (await send("PUT", `${path}/mfl?fieldManager=elector`, body)).body as Obj;
      return [managed(created), managed(updated)];
    },
  },
  {
    name: "a ConfigMap with 1 MiB of data and more: 422",
    run: async (send, ns) => {
      const over = { ...configMap("over"), data: { a: "x".repeat(1024 * 1024 + 1) } };
      return status(await send("POST", `/api/v1/namespaces/${ns}/configmaps`, over));
    },
  },
  {
    name: "creating what exists: 409 AlreadyExists",
    run: async (send, ns) => {
      await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("twice"));
      return status(await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("twice")));
    },
  },
  {
    name: "reading what does not exist: 404 NotFound",
    run: async (send, ns) => status(await send("GET", `/api/v1/namespaces/${ns}/configmaps/none`)),
  },
  {
    name: "a merge patch carrying a stale resourceVersion: 409 Conflict (the state store's conditional patch)",
    run: async (send, ns) => {
      const created = (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("mp"))).body as Obj;
      const version = created.metadata?.resourceVersion as string;
      const patch = { "content-type": "application/merge-patch+json" };
      await send(
        "PATCH",
        `/api/v1/namespaces/${ns}/configmaps/mp`,
        JSON.stringify({ metadata: { resourceVersion: version }, data: { b: "2" } }),
        patch,
      );
      return status(
        await send(
          "PATCH",
          `/api/v1/namespaces/${ns}/configmaps/mp`,
          JSON.stringify({ metadata: { resourceVersion: version }, data: { c: "3" } }),
          patch,
        ),
      );
    },
  },
  {
    name: "a write asked for PartialObjectMetadata answers with the metadata alone",
    run: async (send, ns) => {
      const accept = { accept: "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json" };
      const created = await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("pom"), accept);
      const b = created.body as Obj & { data?: unknown; apiVersion?: string };
      return { status: created.status, kind: b.kind, apiVersion: b.apiVersion, data: b.data ?? null };
    },
  },
  {
    name: "a list page: limit and continue, remainingItemCount",
    run: async (send, ns) => {
      for (const name of ["p1", "p2", "p3"]) await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap(name));
      const page = (await send("GET", `/api/v1/namespaces/${ns}/configmaps?limit=1`)).body as Obj;
      return {
        items: page.items?.length,
        continue: typeof page.metadata?.continue === "string",
        remaining: page.metadata?.remainingItemCount,
      };
    },
  },
  {
    name: "an unknown field is dropped with a Warning header (fieldValidation=Warn)",
    run: async (send, ns) => {
      const created = await send("POST", `/api/v1/namespaces/${ns}/configmaps`, { ...configMap("uf"), extra: 1 });
      return { status: created.status, warning: String(created.headers.warning ?? "").includes('unknown field "extra"') };
    },
  },
  {
    name: "a new namespace gets the kube-root-ca.crt ConfigMap",
    run: async (send, ns) => {
      await vi
        .waitFor(async () => expect((await send("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status).toBe(200), {
          timeout: 10_000,
        })
        .catch(() => undefined);
      return { status: (await send("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status };
    },
  },
  {
    name: "Events are served",
    run: async (send, ns) => ({ status: (await send("GET", `/api/v1/namespaces/${ns}/events`)).status }),
  },
  {
    name: "a SelfSubjectAccessReview is answered (kubectl auth can-i)",
    run: async (send, ns) => {
      const review = {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { namespace: ns, verb: "list", resource: "pods" } },
      };
      const answer = await send("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review);
      return { status: answer.status, allowed: (answer.body as { status?: { allowed?: boolean } }).status?.allowed ?? null };
    },
  },
  {
    // The real server (v1.37) sends nothing at all, not even a BOOKMARK, and ends the watch at timeoutSeconds; it was
    // watched for 75 s once too: no ERROR came. Only a list at such a resourceVersion is refused (below).
    name: "a watch from a resourceVersion the server has not reached: 200, nothing sent until timeoutSeconds",
    run: async (send, ns) => {
      const answer = await send(
        "GET",
        `/api/v1/namespaces/${ns}/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=999999999&timeoutSeconds=2`,
      );
      return { status: answer.status, body: answer.body };
    },
  },
  {
    name: "a list from a resourceVersion the server has not reached: 504 Timeout, cause ResourceVersionTooLarge",
    run: async (send, ns) => {
      const answer = await send("GET", `/api/v1/namespaces/${ns}/configmaps?resourceVersion=999999999`);
      const b = answer.body as Obj & { details?: { causes?: { reason?: string }[]; retryAfterSeconds?: number } };
      return { ...status(answer), cause: b.details?.causes?.[0]?.reason, retryAfterSeconds: b.details?.retryAfterSeconds };
    },
  },
  {
    name: "a watch with allowWatchBookmarks and timeoutSeconds (the reflector's): the events, then a BOOKMARK as it ends",
    run: async (send, ns) => {
      const created = (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("w1"))).body as Obj;
      const from = created.metadata?.resourceVersion as string;
      const watching = send(
        "GET",
        `/api/v1/namespaces/${ns}/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=${from}&timeoutSeconds=4`,
      );
      await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("w2"));
      await send("DELETE", `/api/v1/namespaces/${ns}/configmaps/w1`);
      const answer = await watching;
      const events = watchEvents(answer.body).map((e) => `${e.type} ${e.object?.kind ?? ""} ${e.object?.metadata?.name ?? ""}`);
      // The real server's BOOKMARK before the end comes once or twice (its bookmark timer ticks each second, from
      // 2 s before the deadline; none at all for a timeoutSeconds of 2 or less, hence 4): a run of them counts as one.
      return {
        status: answer.status,
        events: events.filter((e, i) => !(e.startsWith("BOOKMARK") && events[i - 1]?.startsWith("BOOKMARK"))),
      };
    },
  },
  {
    name: "a watch with resourceVersionMatch: 422",
    run: async (send, ns) =>
      status(await send("GET", `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1`)),
  },
  {
    name: "resourceVersionMatch=Exact with resourceVersion 0, or an unknown match: 422",
    run: async (send, ns) => [
      status(await send("GET", `/api/v1/namespaces/${ns}/configmaps?resourceVersionMatch=Exact&resourceVersion=0`)),
      status(await send("GET", `/api/v1/namespaces/${ns}/configmaps?resourceVersionMatch=Newest&resourceVersion=1`)),
    ],
  },
  {
    name: "a list with resourceVersionMatch=Exact shows the collection as it was",
    run: async (send, ns) => {
      const a = (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("a"))).body as Obj;
      await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("b"));
      await send("PATCH", `/api/v1/namespaces/${ns}/configmaps/a`, JSON.stringify({ data: { a: "2" } }), MERGE);
      const then = (
        await send("GET", `/api/v1/namespaces/${ns}/configmaps?resourceVersionMatch=Exact&resourceVersion=${a.metadata?.resourceVersion}`)
      ).body as Obj;
      return {
        resourceVersion: then.metadata?.resourceVersion === a.metadata?.resourceVersion,
        items: then.items?.map((i) => `${i.metadata?.name}:${i.data?.a ?? ""}`),
      };
    },
  },
  {
    name: "a list with a resourceVersion that is not a number: 400",
    run: async (send, ns) => status(await send("GET", `/api/v1/namespaces/${ns}/configmaps?resourceVersion=abc`)),
  },
  {
    name: "a list's items carry no apiVersion and kind (the list's do); a read's and a watch event's object do",
    run: async (send, ns) => {
      const created = (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("tm"))).body as Obj & { apiVersion?: string };
      const list = (await send("GET", `/api/v1/namespaces/${ns}/configmaps`)).body as Obj & { apiVersion?: string };
      const item = list.items?.find((i) => i.metadata?.name === "tm") as (Obj & { apiVersion?: string }) | undefined;
      const read = (await send("GET", `/api/v1/namespaces/${ns}/configmaps/tm`)).body as Obj & { apiVersion?: string };
      const watched = await send("GET", `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=0&timeoutSeconds=1`);
      const event = watchEvents(watched.body).find((e) => e.object?.metadata?.name === "tm")?.object as
        | (Obj & { apiVersion?: string })
        | undefined;
      return {
        list: [list.kind, list.apiVersion],
        item: [item?.kind ?? null, item?.apiVersion ?? null],
        created: [created.kind, created.apiVersion],
        read: [read.kind, read.apiVersion],
        event: [event?.kind, event?.apiVersion],
      };
    },
  },
  {
    name: "a list page with a labelSelector (the reflector's): no remainingItemCount",
    run: async (send, ns) => {
      for (const name of ["s1", "s2", "s3"])
        await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap(name, { labels: { app: "x" } }));
      const page = (await send("GET", `/api/v1/namespaces/${ns}/configmaps?limit=1&labelSelector=app%3Dx`)).body as Obj;
      return {
        items: page.items?.map((i) => i.metadata?.name),
        continue: typeof page.metadata?.continue,
        remaining: page.metadata?.remainingItemCount ?? null,
      };
    },
  },
  {
    name: "metadata.generation by kind: Namespace and ConfigMap none, Deployment 1",
    run: async (send, ns) => {
      const namespace = (await send("GET", `/api/v1/namespaces/${ns}`)).body as Obj;
      const cm = (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("g"))).body as Obj;
      const deployment = (await send("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, deploymentOf("g"))).body as Obj;
      return [namespace, cm, deployment].map((o) => `${o.kind}:${o.metadata?.generation ?? "none"}`);
    },
  },
  {
    name: "a Deployment's annotation change bumps its generation; a label change does not",
    run: async (send, ns) => {
      await send("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, deploymentOf("ga"));
      const path = `/apis/apps/v1/namespaces/${ns}/deployments/ga`;
      const labelled = (await send("PATCH", path, JSON.stringify({ metadata: { labels: { x: "y" } } }), MERGE)).body as Obj;
      const annotated = (await send("PATCH", path, JSON.stringify({ metadata: { annotations: { x: "y" } } }), MERGE)).body as Obj;
      return [labelled.metadata?.generation, annotated.metadata?.generation];
    },
  },
  {
    name: "a fieldManager with a character that is not printable: 422",
    run: async (send, ns) => status(await send("POST", `/api/v1/namespaces/${ns}/configmaps?fieldManager=a%0Ab`, configMap("fmc"))),
  },
  {
    name: "the state store's replace, asked for the metadata alone: 200 PartialObjectMetadata with a new resourceVersion",
    run: async (send, ns) => {
      const created = (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("st"), METADATA_ONLY)).body as Obj;
      const body = { ...configMap("st", { resourceVersion: created.metadata?.resourceVersion }), data: { a: "2" } };
      const replaced = await send("PUT", `/api/v1/namespaces/${ns}/configmaps/st`, body, METADATA_ONLY);
      const b = replaced.body as Obj & { data?: unknown };
      return {
        status: replaced.status,
        kind: b.kind,
        moved: b.metadata?.resourceVersion !== created.metadata?.resourceVersion,
        sameUid: b.metadata?.uid === created.metadata?.uid,
        data: b.data ?? null,
      };
    },
  },
  {
    name: "the state store's writes to a ConfigMap that is gone: replace 404, merge patch 404",
    run: async (send, ns) => {
      const created = (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("gone"))).body as Obj;
      await send("DELETE", `/api/v1/namespaces/${ns}/configmaps/gone`);
      const version = created.metadata?.resourceVersion;
      return [
        status(await send("PUT", `/api/v1/namespaces/${ns}/configmaps/gone`, configMap("gone", { resourceVersion: version }))),
        status(
          await send(
            "PATCH",
            `/api/v1/namespaces/${ns}/configmaps/gone`,
            JSON.stringify({ metadata: { resourceVersion: version }, data: { b: "1" } }),
            MERGE,
          ),
        ),
      ];
    },
  },
  {
    name: "a merge patch removing a key (null) and adding binaryData, at the current resourceVersion",
    run: async (send, ns) => {
      const created = (await send("POST", `/api/v1/namespaces/${ns}/configmaps`, { ...configMap("np"), data: { a: "1", b: "2" } }))
        .body as Obj;
      const patch = {
        metadata: { resourceVersion: created.metadata?.resourceVersion },
        data: { a: null },
        binaryData: { z: Buffer.from("z").toString("base64") },
      };
      const patched = await send("PATCH", `/api/v1/namespaces/${ns}/configmaps/np`, JSON.stringify(patch), MERGE);
      const b = patched.body as Obj & { data?: unknown; binaryData?: unknown };
      return { status: patched.status, data: b.data, binaryData: b.binaryData };
    },
  },
  {
    name: "deleting a ConfigMap: 200 with a Success Status naming it",
    run: async (send, ns) => {
      await send("POST", `/api/v1/namespaces/${ns}/configmaps`, configMap("del"));
      const answer = await send("DELETE", `/api/v1/namespaces/${ns}/configmaps/del`);
      const b = answer.body as Obj & { status?: string; details?: { name?: string; kind?: string } };
      return { status: answer.status, kind: b.kind, result: b.status, name: b.details?.name, detailsKind: b.details?.kind };
    },
  },
  {
    name: "a Lease read, then written over with its resourceVersion (the elector's renew): 200, the holder changes",
    run: async (send, ns) => {
      const path = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
      await send("POST", path, lease("el"));
      const read = (await send("GET", `${path}/el`)).body as Obj & { spec?: Record<string, unknown> };
      const renewed = await send("PUT", `${path}/el`, { ...read, spec: { ...read.spec, holderIdentity: "b", leaseTransitions: 1 } });
      const b = renewed.body as Obj & { spec?: Record<string, unknown> };
      return { status: renewed.status, holder: b.spec?.holderIdentity, transitions: b.spec?.leaseTransitions };
    },
  },
  {
    name: "a Lease renewTime with 3 fractional digits (not MicroTime): 400",
    run: async (send, ns) =>
      status(
        await send("POST", `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`, {
          ...lease("mt"),
          spec: { holderIdentity: "a", leaseDurationSeconds: 15, renewTime: "2026-01-01T00:00:00.000Z" },
        }),
      ),
  },
  {
    name: "a core Event is created and listed",
    run: async (send, ns) => {
      const event = {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "ev1" },
        involvedObject: { kind: "ConfigMap", namespace: ns, name: "x", apiVersion: "v1" },
        reason: "Probe",
        message: "probing",
        type: "Normal",
        source: { component: "probe" },
      };
      const created = await send("POST", `/api/v1/namespaces/${ns}/events`, event);
      const list = (await send("GET", `/api/v1/namespaces/${ns}/events`)).body as Obj;
      return { status: created.status, items: list.items?.map((i) => i.metadata?.name) };
    },
  },
  {
    name: "events.k8s.io/v1 Events are served: written there, read there and as core v1 Events (one store)",
    run: async (send, ns) => {
      const event = {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: "ev2" },
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingController: "shiplog.dev/probe",
        reportingInstance: "probe-1",
        action: "Probe",
        reason: "Probing",
        regarding: { kind: "ConfigMap", namespace: ns, name: "x", apiVersion: "v1" },
        note: "hello",
        type: "Normal",
      };
      const created = await send("POST", `/apis/events.k8s.io/v1/namespaces/${ns}/events`, event);
      const core = (await send("GET", `/api/v1/namespaces/${ns}/events/ev2`)).body as Obj & Record<string, unknown>;
      const list = (await send("GET", `/apis/events.k8s.io/v1/namespaces/${ns}/events`)).body as Obj;
      const v1 = list.items?.find((i) => i.metadata?.name === "ev2") as (Obj & Record<string, unknown>) | undefined;
      return {
        status: created.status,
        core: [core.apiVersion, core.message, (core.involvedObject as { name?: string } | undefined)?.name, core.reportingComponent],
        v1: [list.kind, v1?.apiVersion, v1?.note, (v1?.regarding as { name?: string } | undefined)?.name, v1?.reportingController],
      };
    },
  },
  {
    // The fake has no authentication: who it says you are differs (README); the shape and the groups agree.
    name: "a SelfSubjectReview is answered (kubectl auth whoami)",
    run: async (send) => {
      const answer = await send("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        apiVersion: "authentication.k8s.io/v1",
        kind: "SelfSubjectReview",
      });
      const b = answer.body as Obj & { status?: { userInfo?: { username?: string; groups?: string[] } } };
      return { status: answer.status, kind: b.kind, username: typeof b.status?.userInfo?.username, groups: b.status?.userInfo?.groups };
    },
  },
];

/**
 * The managedFields of an object, their times left out (each write's own), ordered by manager: the server orders
 * entries by time (in seconds) before manager, so whether two writes fell in the same second would decide.
 */
function managed(o: Obj): unknown {
  const entries = (o.metadata?.managedFields ?? []) as Record<string, unknown>[];
  return entries.map(({ time: _time, ...entry }) => entry).sort((a, b) => String(a.manager).localeCompare(String(b.manager)));
}

/** The events of a watch's body (JSON lines). */
function watchEvents(body: unknown): { type: string; object?: Obj }[] {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { type: string; object?: Obj });
}

let plane: ControlPlane;
let cluster: FakeCluster;
beforeAll(async () => {
  [plane, cluster] = await Promise.all([startControlPlane({ nodes: 1 }), startFakeCluster({ nodes: ["kwok-node-0"] })]);
}, 180_000);
afterAll(async () => {
  await cluster?.stop();
  await plane?.stop();
});

const realSend: Send = (method, path, body, headers = {}) =>
  plane.api(method, path, body, { ...(body !== undefined && typeof body !== "string" ? json : {}), ...headers });
const fakeSend: Send = async (method, path, body, headers = {}) => {
  const response = await fetch(`${cluster.url}${path}`, {
    method,
    headers: { ...(body !== undefined && typeof body !== "string" ? json : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, body: parsed, headers: Object.fromEntries(response.headers) };
};

/** Rows of the report: a name, agree or not, and both answers when they differ. */
const report: { set: string; name: string; agree: boolean; real: unknown; fake: unknown }[] = [];
afterAll(() => {
  for (const set of new Set(report.map((r) => r.set))) {
    const rows = report.filter((r) => r.set === set);
    const lines = rows.map(
      (r) =>
        `  ${r.agree ? "agree " : "DIFFER"} ${r.name}${r.agree ? "" : `\n           real: ${JSON.stringify(r.real)}\n           fake: ${JSON.stringify(r.fake)}`}`,
    );
    console.log(`${set}: ${rows.filter((r) => r.agree).length} of ${rows.length} agree\n${lines.join("\n")}`);
  }
});

describe("the fake cluster against a real API server", () => {
  it("probes: each answered alike", async () => {
    let i = 0;
    for (const probe of PROBES) {
      const ns = `probe-${i++}`;
      await realSend("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      await fakeSend("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      // Alike: the real kube-controller-manager puts kube-root-ca.crt in a new namespace soon after (the fake at once).
      await vi
        .waitFor(async () => expect((await realSend("GET", `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`)).status).toBe(200), {
          timeout: 10_000,
        })
        .catch(() => undefined);
      const [real, fake] = [await probe.run(realSend, ns), await probe.run(fakeSend, ns)];
      report.push({ set: "probes", name: probe.name, agree: JSON.stringify(real) === JSON.stringify(fake), real, fake });
    }
    const differing = report.filter((r) => r.set === "probes" && !r.agree).map((r) => r.name);
    expect(differing).toEqual(ACCEPTED_PROBE_DIFFERENCES);
  });
});

/** Probes where the fake answers otherwise on purpose; each reason is in the fake cluster's README. */
const ACCEPTED_PROBE_DIFFERENCES: string[] = [];
