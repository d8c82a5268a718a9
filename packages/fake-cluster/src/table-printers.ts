// Server-side printing (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`): the columns kubectl shows for
// `kubectl get`, with the priority-1 columns `-o wide` adds, worded as the API server's printers fill them.
import { partialObjectMetadata, type KubeObject } from "./kube-object.js";
import type { ResourceName } from "./resource-kinds.js";
import { age, name, type Column, type ColumnsByResource } from "./table-columns.js";
import { CORE_COLUMNS } from "./core-columns.js";
import { WORKLOAD_COLUMNS } from "./workload-columns.js";

const COLUMNS: ColumnsByResource = { ...CORE_COLUMNS, ...WORKLOAD_COLUMNS };

/** A meta.k8s.io/v1 Table of `items`; rows carry the object's metadata (or the object with includeObject=Object). */
export function toTable(
  resource: ResourceName,
  items: KubeObject[],
  listMeta: Record<string, unknown>,
  includeObject: string | undefined,
  now: number,
): unknown {
  // The items are objects of `resource`, as its columns read them.
  const columns = (COLUMNS[resource] ?? [name, age]) as Column[];
  const rowObject = (o: KubeObject) => (includeObject === "Object" ? o : includeObject === "None" ? undefined : partialObjectMetadata(o));
  return {
    kind: "Table",
    apiVersion: "meta.k8s.io/v1",
    metadata: listMeta,
    columnDefinitions: columns.map(({ cell: _cell, ...definition }) => ({ format: "", ...definition })),
    rows: items.map((o) => ({ cells: columns.map((c) => c.cell(o, now)), object: rowObject(o) })),
  };
}
