// Acknowledged records for the state tests: one with any fields, and big states shaped like real clusters.
import { createHash } from "node:crypto";
import type { AcknowledgedRecord } from "@shiplog/controller";
import { entryFingerprint, recordKey } from "@shiplog/controller/internal";

export const GROUP = { logicalEnvironment: "production", physicalEnvironment: "eu-west-1" };

/** A sha256 digest made from `seed`. */
export const digest = (seed: string) => `sha256:${createHash("sha256").update(seed).digest("hex")}` as const;

/** A deployed record; the digest follows the deployment name unless given. */
export function record(
  group: AcknowledgedRecord["group"],
  entry: Partial<AcknowledgedRecord["entry"]> & { deployment_name: string },
): AcknowledgedRecord {
  const full = { name: "ghcr.io/acme/web", digest: digest(entry.deployment_name), status: "deployed" as const, ...entry };
  return { key: recordKey(group, full.deployment_name), group, entry: full };
}

/** `count` records the way a big cluster has them: every container its own image and digest, tags and risks on some. */
export function bigState(count: number, seed = ""): AcknowledgedRecord[] {
  return Array.from({ length: count }, (_, i) => {
    const workload = `svc-${Math.floor(i / 2)}`;
    const container = `c${i % 3}`;
    return record(GROUP, {
      deployment_name: `team-${i % 30}-${workload}-${container}`,
      name: `ghcr.io/acme/${workload}-${container}`,
      digest: digest(`${seed}${i}`),
      version: `1.${i % 7}.${i % 11}`,
      github_repository: ["web", "api", "infra"][i % 3]!,
      tags: { team: `team-${i % 30}`, tier: "backend" },
      ...(i % 4 === 0 ? { runtime_risks: ["internet-exposed" as const] } : {}),
    });
  });
}

/** Records by key, as comparable fingerprints. */
export const byKey = (records: Iterable<AcknowledgedRecord>) => new Map([...records].map((r) => [r.key, entryFingerprint(r.entry)]));
