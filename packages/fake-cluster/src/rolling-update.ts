// The Deployment controller's rolling-update arithmetic (kube-controller-manager's deployment/util and rolling.go),
// as pure functions of replica counts: how far the new ReplicaSet may grow and the old ones shrink in one step.

/** An intstr value as Deployments carry it: a count or a percentage string ("25%"). */
export type IntOrPercent = number | string;

/** The Deployment defaults: 25% surge, 25% unavailable. */
export const DEFAULT_MAX_SURGE = "25%";
export const DEFAULT_MAX_UNAVAILABLE = "25%";

/** A count, or a percentage of `total` rounded up (maxSurge) or down (maxUnavailable), as intstr does. */
export function scaledValue(value: IntOrPercent, total: number, roundUp: boolean): number {
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`must be a non-negative integer or a percentage, got ${value}`);
    return value;
  }
  const match = /^(\d+)%$/.exec(value);
  if (!match) throw new RangeError(`must be a non-negative integer or a percentage, got ${JSON.stringify(value)}`);
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** The rolling-update settings of a Deployment spec (defaults filled in). */
export interface RollingUpdateSettings {
  maxSurge: IntOrPercent;
  maxUnavailable: IntOrPercent;
}

/** Surge and unavailability for `desired` replicas; when both come to 0, one pod may be unavailable. */
export function resolveFenceposts(settings: RollingUpdateSettings, desired: number): { surge: number; unavailable: number } {
  const surge = scaledValue(settings.maxSurge, desired, true);
  let unavailable = scaledValue(settings.maxUnavailable, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable: Math.min(unavailable, desired) };
}

/** One ReplicaSet as the arithmetic sees it. */
export interface ReplicaCounts {
  /** spec.replicas */
  replicas: number;
  /** status.availableReplicas */
  available: number;
}

/** The size the new ReplicaSet may scale up to now: total pods stay within desired + maxSurge. */
export function newReplicaSetTarget(
  settings: RollingUpdateSettings,
  desired: number,
  newRs: ReplicaCounts,
  old: readonly ReplicaCounts[],
): number {
  if (newRs.replicas >= desired) return desired;
  const maxTotal = desired + scaledValue(settings.maxSurge, desired, true);
  const current = newRs.replicas + old.reduce((n, rs) => n + rs.replicas, 0);
  if (current >= maxTotal) return newRs.replicas;
  return newRs.replicas + Math.min(maxTotal - current, desired - newRs.replicas);
}

/**
 * New sizes for the old ReplicaSets (oldest first): unhealthy replicas go first, then available ones, keeping
 * at least desired - maxUnavailable pods available.
 */
export function oldReplicaSetTargets(
  settings: RollingUpdateSettings,
  desired: number,
  newRs: ReplicaCounts,
  old: readonly ReplicaCounts[],
): number[] {
  const targets = old.map((rs) => rs.replicas);
  const oldCount = targets.reduce((n, r) => n + r, 0);
  if (oldCount === 0) return targets;
  const minAvailable = desired - (desired === 0 ? 0 : resolveFenceposts(settings, desired).unavailable);
  const allCount = oldCount + newRs.replicas;
  const newUnavailable = newRs.replicas - newRs.available;
  const maxScaledDown = allCount - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return targets;
  // Unhealthy replicas first: they would otherwise block the rollout.
  let cleaned = 0;
  old.forEach((rs, i) => {
    if (cleaned >= maxScaledDown || targets[i] === 0 || targets[i] === rs.available) return;
    const down = Math.min(maxScaledDown - cleaned, targets[i]! - rs.available);
    targets[i] = targets[i]! - down;
    cleaned += down;
  });
  // Then available ones, as long as enough stay available.
  const available = newRs.available + old.reduce((n, rs) => n + rs.available, 0);
  if (available <= minAvailable) return targets;
  let budget = available - minAvailable;
  for (let i = 0; i < targets.length && budget > 0; i++) {
    const down = Math.min(targets[i]!, budget);
    targets[i] = targets[i]! - down;
    budget -= down;
  }
  return targets;
}
