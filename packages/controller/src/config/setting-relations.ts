// Rules between two settings that no setting's type states alone, as data: the controller's configuration checks them
// (config/config.ts), the leader elector checks its own (election/lease-timing.ts), and `pnpm generate:settings`
// writes them into the chart's checks, whose template evaluates each kind the way relationProblem does here.

/** One value at least (or, strictly, more than) `factor` times another: a duration's order. */
export interface OrderRelation<K extends string = string> {
  kind: "order";
  setting: K;
  than: K;
  /** The other value is multiplied by this first (client-go's jitter factor for the renew deadline; otherwise 1). */
  factor: number;
  /** Whether equal values hold (≥) or not (>). */
  orEqual: boolean;
  /** The problem, in words, when the rule does not hold. */
  message: string;
}

/** Two lists that share no entry: what is named in both is the problem. */
export interface DisjointRelation<K extends string = string> {
  kind: "disjoint";
  setting: K;
  than: K;
  /** The problem after the shared entries, in words. */
  message: string;
}

export type SettingRelation<K extends string = string> = OrderRelation<K> | DisjointRelation<K>;

/** The problem with `values` under `relation`, in words; undefined when it holds. */
export function relationProblem<K extends string>(relation: SettingRelation<K>, values: Partial<Record<K, unknown>>): string | undefined {
  if (relation.kind === "order") {
    const value = values[relation.setting] as number;
    const bound = relation.factor * (values[relation.than] as number);
    return (relation.orEqual ? value >= bound : value > bound) ? undefined : relation.message;
  }
  const other = new Set(values[relation.than] as readonly string[]);
  const shared = (values[relation.setting] as readonly string[]).filter((entry) => other.has(entry));
  return shared.length === 0 ? undefined : `${shared.join(", ")} ${relation.message}`;
}
