// managedFields as kube-apiserver v1.37 keeps them: each expectation below is what the real server answered to the
// same writes (recorded with curl against test/kit/control-plane.ts; differential.real.test.ts checks it live).
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../src/kube-object.js";
import { type ManagedFieldsEntry, managerFromUserAgent, sameJson, updateManagedFields } from "../src/managed-fields.js";

const T1 = "2026-11-27T07:00:16Z";
const T2 = "2026-11-27T07:00:17Z";
const cm = (data: Record<string, string>, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "mf", namespace: "x1", uid: "u", resourceVersion: "1", labels: { a: "b" }, annotations: { x: "y" }, ...extra },
  data,
});
const withFields = (o: KubeObject, managedFields: ManagedFieldsEntry[] | undefined): KubeObject => ({
  ...o,
  metadata: { ...o.metadata, managedFields },
});
const fields = (entries: ManagedFieldsEntry[] | undefined) =>
  entries?.map((e) => ({ manager: e.manager, time: e.time, fieldsV1: e.fieldsV1 }));

describe("managedFields", () => {
  it("a create: the manager owns every field it set, maps with their '.' member, server-owned metadata left out", () => {
    const created = { ...cm({ k1: "v", k2: "v" }), binaryData: { b: "AAAA" } };
    expect(updateManagedFields(undefined, created, undefined, "curl", "v1", T1)).toEqual([
      {
        manager: "curl",
        operation: "Update",
        apiVersion: "v1",
        time: T1,
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:binaryData": { ".": {}, "f:b": {} },
          "f:data": { ".": {}, "f:k1": {}, "f:k2": {} },
          "f:metadata": { "f:annotations": { ".": {}, "f:x": {} }, "f:labels": { ".": {}, "f:a": {} } },
        },
      },
    ]);
  });

  it("another manager's change takes the fields it changed; a removed key leaves every set; an empty entry goes", () => {
    const v1 = cm({ k1: "v", k2: "v" });
    const m1 = updateManagedFields(undefined, v1, undefined, "curl", "v1", T1);
    const m2 = updateManagedFields(withFields(v1, m1), withFields(cm({ k1: "w", k2: "v", k3: "z" }), m1), undefined, "shiplog", "v1", T2);
    const v2 = withFields(cm({ k1: "w", k2: "v", k3: "z" }), m2);
    expect(fields(m2)).toEqual([
      {
        manager: "curl",
        time: T1,
        fieldsV1: {
          "f:data": { ".": {}, "f:k2": {} },
          "f:metadata": { "f:annotations": { ".": {}, "f:x": {} }, "f:labels": { ".": {}, "f:a": {} } },
        },
      },
      { manager: "shiplog", time: T2, fieldsV1: { "f:data": { "f:k1": {}, "f:k3": {} } } },
    ]);
    // k2 removed by a third manager, which owns nothing afterwards: no entry for it; curl keeps .data alone ({}).
    const m3 = updateManagedFields(v2, withFields(cm({ k1: "w", k3: "z" }), m2), undefined, "unknown", "v1", T2);
    expect(fields(m3)?.map((e) => e.manager)).toEqual(["curl", "shiplog"]);
    expect(m3?.[0]?.fieldsV1["f:data"]).toEqual({});
  });

  it("a write that changes nothing keeps the entries as they were (time too)", () => {
    const v1 = cm({ k1: "v" });
    const m1 = updateManagedFields(undefined, v1, undefined, "curl", "v1", T1);
    expect(updateManagedFields(withFields(v1, m1), cm({ k1: "v" }), undefined, "curl", "v1", T2)).toBe(m1);
  });

  it("a Lease's spec is a struct (no '.'); finalizers are a set; generateName is owned, name is not", () => {
    const lease: KubeObject = { metadata: { name: "l" }, spec: { holderIdentity: "a", leaseDurationSeconds: 15 } };
    expect(updateManagedFields(undefined, lease, undefined, "m", "coordination.k8s.io/v1", T1)?.[0]?.fieldsV1).toEqual({
      "f:spec": { "f:holderIdentity": {}, "f:leaseDurationSeconds": {} },
    });
    const fin: KubeObject = { metadata: { name: "fl", generateName: "x", finalizers: ["a.io/b"] } };
    expect(updateManagedFields(undefined, fin, undefined, "curl", "v1", T1)?.[0]?.fieldsV1).toEqual({
      "f:metadata": { "f:finalizers": { ".": {}, 'v:"a.io/b"': {} }, "f:generateName": {} },
    });
    expect(updateManagedFields(undefined, { metadata: { name: "empty" } }, undefined, "curl", "v1", T1)).toBeUndefined();
  });

  it("entries in the server's order: operation, time in seconds, manager", () => {
    const v1 = cm({ k1: "v" });
    const m1 = updateManagedFields(undefined, v1, undefined, "zeta", "v1", T2);
    const m2 = updateManagedFields(withFields(v1, m1), cm({ k1: "v", k2: "w" }), undefined, "alpha", "v1", T2);
    expect(m2?.map((e) => e.manager)).toEqual(["alpha", "zeta"]);
    const m3 = updateManagedFields(undefined, v1, undefined, "zeta", "v1", T1);
    const m4 = updateManagedFields(withFields(v1, m3), cm({ k1: "v", k2: "w" }), undefined, "alpha", "v1", T2);
    expect(m4?.map((e) => e.manager)).toEqual(["zeta", "alpha"]);
  });

  it("the manager of a write without fieldManager: the User-Agent's product, else unknown", () => {
    expect(managerFromUserAgent("kubectl/v1.37.2 (linux/amd64) kubernetes/abc")).toBe("kubectl");
    expect(managerFromUserAgent("node-fetch/1.0 (+https://github.com/bitinn/node-fetch)")).toBe("node-fetch");
    expect(managerFromUserAgent("")).toBe("unknown");
    expect(managerFromUserAgent(undefined)).toBe("unknown");
  });

  it("sameJson ignores key order and undefined keys, not values", () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1, d: undefined })).toBe(true);
    expect(sameJson({ a: 1 }, { a: "1" })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
  });
});
