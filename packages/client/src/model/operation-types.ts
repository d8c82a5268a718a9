// The types `ShiplogClient.call` and `paginate` take and give, from the declared operations (model/operations.ts,
// generated from the registry), so a program calling them type-checks no schema.
import type { Operations } from "./operations.js";

/** An operation of the registry, by its OpenAPI operation id: `git/get-ref`. */
export type OperationId = keyof Operations;
/** The parameters an operation takes. */
export type ParamsOf<K extends OperationId> = Operations[K]["params"];
/** What an operation answers. */
export type ResultOf<K extends OperationId> = Operations[K]["result"];
/** The operations that list, page after page. */
export type ListOperationId = { [K in OperationId]: Operations[K] extends { item: unknown } ? K : never }[OperationId];
/** One item of a list operation's answer. */
export type ItemOf<K extends ListOperationId> = Operations[K] extends { item: infer T } ? T : never;
