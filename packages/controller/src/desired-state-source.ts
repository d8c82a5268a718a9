// The desired state as the flush loop asks for it: computed from the informer caches with the configured mapping
// (namespace filters, label selector on workload templates, name template). A source may also say which record keys
// changed since it was last asked (a desired-state tracker fed by informer events can). This one knows only whether
// anything changed: with no informer event since the last computation the caches, and so the desired state, are the
// same, and it says "no key changed" (the rounds of a cold sync then carry their backlog instead of diffing all).
import type { ControllerConfig } from "./config.js";
import { computeDesiredState, PodRecordsMemo, type ClusterSnapshot, type DesiredState } from "./desired-state.js";
import { parseLabelSelector, type LabelSelector } from "./label-selector.js";

/** The desired state now, and the keys changed since the last call when the source knows them. */
export interface DesiredStateView {
  desired: DesiredState;
  /** Record keys whose desired record or held status changed since the last call; absent or "all": unknown. */
  changedKeys?: ReadonlySet<string> | "all";
}

/** Where the flush loop gets the desired state. */
export interface DesiredStateSource {
  /** The desired state, and what changed since the last call (each call consumes the changes). */
  current(): DesiredStateView;
}

const NOTHING_CHANGED: ReadonlySet<string> = new Set();

/** The desired state computed afresh from the caches on each call (pods unchanged since the last call are not mapped again). */
export class ComputedDesiredState implements DesiredStateSource {
  readonly #memo = new PodRecordsMemo();
  #last: DesiredState | undefined;
  #changed = true;
  readonly #selector: LabelSelector | undefined;
  readonly #include: ReadonlySet<string>;
  readonly #exclude: ReadonlySet<string>;

  constructor(
    private readonly snapshot: ClusterSnapshot,
    private readonly config: Pick<
      ControllerConfig,
      | "cluster"
      | "logicalEnvironment"
      | "physicalEnvironment"
      | "deploymentNameTemplate"
      | "deploymentTrackerAnnotations"
      | "namespaces"
      | "excludeNamespaces"
      | "labelSelector"
    >,
  ) {
    if (config.labelSelector !== undefined) {
      // Validated by loadConfig; applied to workload templates as the API server applies it to pods.
      const selector = parseLabelSelector(config.labelSelector);
      if (!selector.ok) throw new RangeError(`invalid label selector: ${selector.reason}`);
      this.#selector = selector.value;
    }
    this.#include = new Set(config.namespaces);
    this.#exclude = new Set(config.excludeNamespaces);
  }

  /** An informer event: the next call computes afresh. */
  changed(): void {
    this.#changed = true;
  }

  current(): DesiredStateView {
    if (!this.#changed && this.#last) return { desired: this.#last, changedKeys: NOTHING_CHANGED };
    // Synchronous: no informer event lands between the computation and clearing the flag.
    this.#last = this.compute();
    this.#changed = false;
    return { desired: this.#last };
  }

  /** The desired state now, computed afresh (for diagnostics: it consumes no changes). */
  compute(): DesiredState {
    const { config } = this;
    return computeDesiredState(this.snapshot, {
      cluster: config.cluster,
      logicalEnvironment: config.logicalEnvironment,
      ...(config.physicalEnvironment !== undefined ? { physicalEnvironment: config.physicalEnvironment } : {}),
      deploymentNameTemplate: config.deploymentNameTemplate,
      deploymentTrackerAnnotations: config.deploymentTrackerAnnotations,
      namespaceAllowed: (ns) => (this.#include.size === 0 || this.#include.has(ns)) && !this.#exclude.has(ns),
      ...(this.#selector ? { podLabelsMatch: this.#selector.matches } : {}),
      memo: this.#memo,
    });
  }
}
