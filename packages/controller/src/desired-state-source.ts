// The desired state as the flush loop asks for it: computed from the informer caches with the configured mapping
// (namespace filters, label selector on workload templates, name template). A source may also say which record keys
// changed since it was last asked (a desired-state tracker fed by informer events can); this one cannot, so every
// round diffs everything.
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
  current(): DesiredStateView;
}

/** The desired state computed afresh from the caches on each call (pods unchanged since the last call are not mapped again). */
export class ComputedDesiredState implements DesiredStateSource {
  readonly #memo = new PodRecordsMemo();
  readonly #selector: LabelSelector | undefined;
  readonly #include: ReadonlySet<string>;
  readonly #exclude: ReadonlySet<string>;

  constructor(
    private readonly snapshot: ClusterSnapshot,
    private readonly config: Pick<
      ControllerConfig,
      "cluster" | "logicalEnvironment" | "physicalEnvironment" | "deploymentNameTemplate" | "deploymentTrackerAnnotations" | "namespaces" | "excludeNamespaces" | "labelSelector"
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

  current(): DesiredStateView {
    const { config } = this;
    const desired = computeDesiredState(this.snapshot, {
      cluster: config.cluster,
      logicalEnvironment: config.logicalEnvironment,
      ...(config.physicalEnvironment !== undefined ? { physicalEnvironment: config.physicalEnvironment } : {}),
      deploymentNameTemplate: config.deploymentNameTemplate,
      deploymentTrackerAnnotations: config.deploymentTrackerAnnotations,
      namespaceAllowed: (ns) => (this.#include.size === 0 || this.#include.has(ns)) && !this.#exclude.has(ns),
      ...(this.#selector ? { podLabelsMatch: this.#selector.matches } : {}),
      memo: this.#memo,
    });
    return { desired };
  }
}
