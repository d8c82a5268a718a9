// A service that accepts every entry, in memory, each call passing the real write-budget pacer first (as the client's
// pipeline does), for the flush loop's tests and the steady-state benchmark on a virtual clock.
import type { ClusterDeploymentResult, SetClusterDeploymentRecordsParams } from "@shiplog/client";
import type { ClusterRecordsApi } from "../src/flush/batch-sender.js";
import { budgetPacer, CLUSTER_ROUTE } from "../src/flush/budget-pacer.js";
import type { Clock } from "../src/clock.js";
import type { WriteBudget } from "../src/flush/write-budget.js";

/** The cluster endpoint, paced by `budget` on `clock`; `onCall` sees each call as it leaves its slot. */
export function acceptingApi(
  budget: WriteBudget,
  clock: Clock,
  onCall: (params: SetClusterDeploymentRecordsParams) => void,
): ClusterRecordsApi {
  const pacer = budgetPacer({ budget, clock, serialize: true });
  return {
    async setClusterDeploymentRecords(params, options) {
      const attempt = {
        method: "POST",
        route: CLUSTER_ROUTE,
        url: "",
        path: "",
        headers: {},
        body: undefined,
        attempt: 0,
        operation: "POST cluster",
        signal: options?.signal,
      } as const;
      await pacer.wrap!(async () => {
        onCall(params);
        return { status: 200, headers: new Headers(), body: "" } as never;
      }, attempt);
      return { total_count: params.deployments.length, deployment_records: [] } as unknown as ClusterDeploymentResult;
    },
  };
}
