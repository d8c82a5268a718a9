// The compact store's parts with plain data: keys kept in etcd's order, the history ring, and list pages read as
// the etcd3 store reads them (at the current revision or an older one, continue tokens, remainingItemCount).
import { describe, expect, it } from "vitest";
import { ClusterClock } from "../src/cluster-clock.js";
import { HistoryLog } from "../src/history-log.js";
import { ListPages } from "../src/list-pages.js";
import { NameGenerator } from "../src/name-generator.js";
import { ObjectStore } from "../src/object-store.js";
import { ObjectTable, StoredObject, namespaceRange } from "../src/object-table.js";
import { parseLabelSelector } from "../src/selectors.js";

const record = (key: string) => new StoredObject("configmaps", key, `uid-${key}`, "{}", undefined, undefined);
const names = (items: string[]) => items.map((json) => (JSON.parse(json) as { metadata: { name: string } }).metadata.name);

describe("ObjectTable", () => {
  it("keeps keys in byte order through inserts, deletes and re-inserts, each key once", () => {
    const table = new ObjectTable();
    const present = new Set<string>();
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 40; i++) {
        const key = `ns-${next() % 7}/name-${next() % 30}`;
        if (present.has(key) && next() % 2 === 0) {
          table.delete(key);
          present.delete(key);
        } else if (!present.has(key)) {
          table.insert(record(key));
          present.add(key);
        }
      }
      expect(table.sortedKeys()).toEqual([...present].sort());
    }
  });

  it("a namespace's keys are one range: team-1 holds neither team-10 nor team-1-a", () => {
    const keys = ["team-1-a/x", "team-1/a", "team-1/b", "team-10/a", "team-2/a"];
    expect([...keys].sort()).toEqual(keys);
    const [start, end] = namespaceRange(keys, "team-1");
    expect(keys.slice(start, end)).toEqual(["team-1/a", "team-1/b"]);
    expect(namespaceRange(keys, "team-3")).toEqual([5, 5]);
  });
});

describe("HistoryLog", () => {
  const event = (rv: number) => ({
    rv,
    type: "MODIFIED" as const,
    resource: "configmaps" as const,
    key: `ns/${rv}`,
    json: `{"rv":${rv}}`,
    prevJson: `{"rv":${rv - 1}}`,
  });

  it("keeps the newest `limit` events; older resourceVersions are expired", () => {
    const log = new HistoryLog(3, 1000);
    for (let rv = 1001; rv <= 1005; rv++) log.append(event(rv));
    expect(log.size()).toBe(3);
    expect(log.compactedRv).toBe(1002);
    expect(() => log.seqAfter(1001)).toThrow(/too old resource version: 1001 \(1003\)/);
    const seq = log.seqAfter(1002);
    expect([log.start(), seq, log.end()]).toEqual([2, 2, 5]);
    expect(log.at(seq)).toEqual(event(1003));
    expect(log.seqAfter(1005)).toBe(5);
    log.compact(1005);
    expect(log.size()).toBe(0);
    expect(() => log.seqAfter(1004)).toThrow(/too old/);
    expect(log.seqAfter(1005)).toBe(5);
  });
});

describe("ListPages", () => {
  function storeWith(names: string[]) {
    const store = new ObjectStore(new NameGenerator(1), 1000, new ClusterClock());
    store.create("namespaces", { metadata: { name: "ns" } });
    // The namespace's kube-root-ca.crt goes: the pages hold the names each case gives.
    store.remove("configmaps", "ns", "kube-root-ca.crt");
    for (const name of names) {
      store.create("configmaps", { metadata: { name, namespace: "ns", labels: { set: name === "a" ? "one" : "rest" } }, data: { v: "1" } });
    }
    return { store, pages: new ListPages(store) };
  }

  it("pages in key order; remainingItemCount counts what follows", () => {
    const { pages } = storeWith(["c", "a", "e", "b", "d"]);
    const first = pages.read({ resource: "configmaps", filter: { namespace: "ns" }, limit: 2 });
    expect(names(first.items)).toEqual(["a", "b"]);
    expect(first).toMatchObject({ continueAfter: "ns/b", remaining: 3 });
    const last = pages.read({ resource: "configmaps", filter: { namespace: "ns" }, limit: 3, after: "ns/b" });
    expect(names(last.items)).toEqual(["c", "d", "e"]);
    expect(last.continueAfter).toBeUndefined();
  });

  it("with a selector: a continue token while keys remain, even if none of them matches, and no remainingItemCount", () => {
    const { pages } = storeWith(["a", "b", "c"]);
    const filter = { namespace: "ns", labels: parseLabelSelector("set=one") };
    const first = pages.read({ resource: "configmaps", filter, limit: 1 });
    expect(names(first.items)).toEqual(["a"]);
    expect(first.continueAfter).toBe("ns/a");
    expect(first.remaining).toBeUndefined();
    const rest = pages.read({ resource: "configmaps", filter, limit: 1, after: "ns/a" });
    expect(rest).toEqual({ items: [] });
  });

  it("reads the collection as it was at an older resourceVersion, changes since undone; 410 once compacted", () => {
    const { store, pages } = storeWith(["a", "b", "c", "d", "e"]);
    const rv = store.currentRv();
    const c = store.get("configmaps", "ns", "c")!;
    store.write("configmaps", { ...c, data: { v: "2" } });
    store.remove("configmaps", "ns", "d");
    store.create("configmaps", { metadata: { name: "bb", namespace: "ns" }, data: { v: "1" } });
    store.create("configmaps", { metadata: { name: "f", namespace: "ns" }, data: { v: "1" } });
    const then = pages.read({ resource: "configmaps", filter: { namespace: "ns" }, limit: 2, after: "ns/b", rv });
    expect(then.items.map((json) => JSON.parse(json).data.v)).toEqual(["1", "1"]);
    expect(names(then.items)).toEqual(["c", "d"]);
    expect(then).toMatchObject({ continueAfter: "ns/d", remaining: 1 });
    const now = pages.read({ resource: "configmaps", filter: { namespace: "ns" }, limit: 0, after: "ns/b" });
    expect(names(now.items)).toEqual(["bb", "c", "e", "f"]);
    store.compactHistory();
    store.create("configmaps", { metadata: { name: "g", namespace: "ns" }, data: {} });
    const stale = () => pages.read({ resource: "configmaps", filter: { namespace: "ns" }, limit: 2, after: "ns/b", rv });
    expect(stale).toThrow(/too old resource version/);
  });
});
