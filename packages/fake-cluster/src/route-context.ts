import type { FaultState } from "./faults.js";
import type { GarbageCollector } from "./garbage-collector.js";
import type { ListPages } from "./list-pages.js";
import type { ObjectStore } from "./object-store.js";
import type { RequestStats } from "./request-stats.js";
import type { WatchHub } from "./watch-stream.js";

/** What the routes need from the cluster. */
export interface RouteContext {
  store: ObjectStore;
  pages: ListPages;
  gc: GarbageCollector;
  watches: WatchHub;
  faults: FaultState;
  stats: RequestStats;
}
