// The desired state as the flush loop asks for it: the informers' desired-state tracker (mapping/desired-state-tracker.ts,
// updated from their change events for what they touch only), with the configured mapping (namespace filters, label
// selector on workload templates, name template), and the record keys that changed since the loop last asked, so a
// round diffs only those.
import type { ControllerConfig } from "../config/config.js";
import type { DesiredState, DesiredStateOptions } from "./desired-state.js";
import type { DesiredStateTracker } from "./desired-state-tracker.js";
import { parseLabelSelector } from "../kube/label-selector.js";

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

/**
 * The mapping options of the desired state from the configuration, and where the repository a namespace names is
 * read (the namespace cache; absent: no namespace names one).
 */
export function desiredStateOptions(
  config: Pick<
    ControllerConfig,
    | "org"
    | "imageRepositories"
    | "registryHost"
    | "cluster"
    | "logicalEnvironment"
    | "physicalEnvironment"
    | "deploymentNameTemplate"
    | "deploymentTrackerAnnotations"
    | "namespaces"
    | "excludeNamespaces"
    | "labelSelector"
  >,
  namespaceRepository?: (namespace: string) => string | undefined,
): DesiredStateOptions {
  const include = new Set(config.namespaces);
  const exclude = new Set(config.excludeNamespaces);
  // Validated by loadConfig; applied to workload templates as the API server applies it to pods.
  const selector = config.labelSelector === undefined ? undefined : parseLabelSelector(config.labelSelector);
  if (selector && !selector.ok) throw new RangeError(`invalid label selector: ${selector.reason}`);
  return {
    cluster: config.cluster,
    logicalEnvironment: config.logicalEnvironment,
    ...(config.physicalEnvironment !== undefined ? { physicalEnvironment: config.physicalEnvironment } : {}),
    deploymentNameTemplate: config.deploymentNameTemplate,
    deploymentTrackerAnnotations: config.deploymentTrackerAnnotations,
    repositories: {
      rules: { org: config.org, imageRepositories: config.imageRepositories, registryHost: config.registryHost },
      ...(namespaceRepository ? { namespaceRepository } : {}),
    },
    namespaceAllowed: (ns) => (include.size === 0 || include.has(ns)) && !exclude.has(ns),
    ...(selector?.ok ? { podLabelsMatch: selector.value.matches } : {}),
  };
}

/** The tracker as the flush loop's source: its state, then the keys changed since the loop last asked. */
export function trackedDesiredState(tracker: DesiredStateTracker): DesiredStateSource {
  return {
    current() {
      const desired = tracker.state();
      return { desired, changedKeys: tracker.changedKeys() };
    },
  };
}
