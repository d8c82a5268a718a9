import type { Clock } from "./clock.js";

/** A deployment record with everything the emulator knows, beyond what the wire shows. */
export interface StoredDeploymentRecord {
  id: number;
  org: string;
  cluster: string;
  logical_environment: string;
  physical_environment: string;
  deployment_name: string;
  /** The artifact's name and version as the artifact registry holds them (first processed wins). */
  name: string;
  version: string | undefined;
  digest: string;
  status: "deployed" | "decommissioned";
  tags: Record<string, string>;
  runtime_risks: string[];
  repository: string;
  attestation_id: number | null;
  created: string;
  updated_at: string;
  /** How many writes (requests, or entries of a cluster call) applied to this record; repeated deliveries count each. */
  writes: number;
}

export interface StoredStorageRecord {
  id: number;
  org: string;
  repository: string;
  name: string;
  version: string | undefined;
  digest: string;
  artifact_url: string | undefined;
  path: string | undefined;
  registry_url: string;
  registry_repository: string | undefined;
  status: string;
  created_at: string;
  updated_at: string;
  /** How many writes applied to this record; repeated deliveries count each. */
  writes: number;
}

/** What a request writes; the store adds the id, the artifact's name and version, and the timestamps. */
export type DeploymentWrite = Omit<StoredDeploymentRecord, "id" | "created" | "updated_at" | "writes" | "tags" | "runtime_risks"> & {
  /** Absent: keep the record's tags (a new record gets none). */
  tags: Record<string, string> | undefined;
  runtime_risks: string[] | undefined;
};

export type StorageWrite = Omit<StoredStorageRecord, "id" | "created_at" | "updated_at" | "writes">;

/** Which deployment records a read wants; organizations match case-insensitively, the rest exactly. */
export interface DeploymentFilter {
  org?: string;
  cluster?: string;
  digest?: string;
  status?: StoredDeploymentRecord["status"];
}

/** Deployment records counted per status, and per cluster. */
export interface DeploymentCounts {
  total: number;
  by_status: Record<StoredDeploymentRecord["status"], number>;
  by_cluster: Record<string, { total: number } & Record<StoredDeploymentRecord["status"], number>>;
}

/** A copy safe to keep and change (structuredClone is some 50 times slower, which tells at 150,000 records). */
function copyDeployment(r: StoredDeploymentRecord): StoredDeploymentRecord {
  return { ...r, tags: { ...r.tags }, runtime_risks: [...r.runtime_risks] };
}

function deploymentMatcher(filter: DeploymentFilter): (record: StoredDeploymentRecord) => boolean {
  const org = filter.org?.toLowerCase();
  return (r) =>
    (!org || r.org.toLowerCase() === org) &&
    (!filter.cluster || r.cluster === filter.cluster) &&
    (!filter.digest || r.digest === filter.digest) &&
    (!filter.status || r.status === filter.status);
}

const key = (...parts: (string | undefined)[]) => parts.map((p) => (p ?? "").toLowerCase()).join("\u0000");
/** A deployment record's identity: the organization case-insensitive (2.1), cluster, environments and name exactly. */
const deploymentKey = (w: DeploymentWrite) =>
  `${w.org.toLowerCase()}\u0000${w.cluster}\u0000${w.logical_environment}\u0000${w.physical_environment}\u0000${w.deployment_name}`;
/** An artifact's identity per repository, and its digest's within the organization. */
const artifactKey = (org: string, repository: string, digest: string) =>
  `${org.toLowerCase()}\u0000${repository.toLowerCase()}\u0000${digest}`;
const linkKey = (org: string, digest: string) => `${org.toLowerCase()}\u0000${digest}`;
/** Shared by every record written without tags or risks (never mutated: an update replaces the record). */
const NO_TAGS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_RISKS: string[] = Object.freeze([]) as unknown as string[];

/** Deployment and storage records with the spec's identity rules (upserts, one name per artifact). */
export class ArtifactStore {
  #deployments = new Map<string, StoredDeploymentRecord>();
  /** The same records by id (ids are dense and only grow), so a page starts where the last one ended. */
  #deploymentsById: (StoredDeploymentRecord | undefined)[] = [];
  #storage = new Map<string, StoredStorageRecord>();
  /** (org, repository, digest) → the artifact's one name and version. */
  #artifacts = new Map<string, { name: string; version: string | undefined }>();
  /** (org, digest) → repositories linked to it by records: one name (nearly always), or a set. */
  #links = new Map<string, string | Set<string>>();
  #nextDeploymentId = 1;
  #nextStorageId = 1;
  /** The last timestamp made, by second: records written in the same second share one string. */
  #stamp = { second: Number.NaN, text: "" };

  constructor(private readonly clock: Clock) {}

  /** The service's timestamp of now, made once a second (a cluster call writes 1,000 records at once). */
  #timestamp(): string {
    const ms = this.clock.now();
    const second = Math.floor(ms / 1000);
    if (second !== this.#stamp.second) this.#stamp = { second, text: this.clock.timestamp(ms) };
    return this.#stamp.text;
  }

  /** The artifact's identity; the first name and version seen for (repository, digest) stay. */
  #artifact(org: string, repository: string, digest: string, name: string, version: string | undefined) {
    const id = artifactKey(org, repository, digest);
    let artifact = this.#artifacts.get(id);
    if (!artifact) {
      artifact = { name, version };
      this.#artifacts.set(id, artifact);
      const link = linkKey(org, digest);
      const links = this.#links.get(link);
      if (links === undefined) this.#links.set(link, repository);
      else if (typeof links === "string") this.#links.set(link, new Set([links, repository]));
      else links.add(repository);
    }
    return artifact;
  }

  /** Repositories of the organization already linked to a digest. */
  linkedRepositories(org: string, digest: string): string[] {
    const links = this.#links.get(linkKey(org, digest));
    return links === undefined ? [] : typeof links === "string" ? [links] : [...links];
  }

  /** Creates or updates the record for (cluster, logical env, physical env, deployment name). */
  upsertDeployment(write: DeploymentWrite): StoredDeploymentRecord {
    const id = deploymentKey(write);
    const artifact = this.#artifact(write.org, write.repository, write.digest, write.name, write.version);
    const now = this.#timestamp();
    const existing = this.#deployments.get(id);
    const record: StoredDeploymentRecord = {
      id: existing?.id ?? this.#nextDeploymentId++,
      org: write.org,
      cluster: write.cluster,
      logical_environment: write.logical_environment,
      physical_environment: write.physical_environment,
      deployment_name: write.deployment_name,
      name: artifact.name,
      version: artifact.version,
      digest: write.digest,
      status: write.status,
      tags: write.tags ?? existing?.tags ?? NO_TAGS,
      runtime_risks: write.runtime_risks ?? existing?.runtime_risks ?? NO_RISKS,
      repository: write.repository,
      attestation_id: write.attestation_id,
      created: existing?.created ?? now,
      updated_at: now,
      writes: (existing?.writes ?? 0) + 1,
    };
    this.#deployments.set(id, record);
    this.#deploymentsById[record.id] = record;
    return record;
  }

  /** Creates or updates the storage record for (digest, registry, registry repository, path). */
  upsertStorage(write: StorageWrite): StoredStorageRecord {
    const id = key(write.org, write.digest, write.registry_url, write.registry_repository, write.path);
    const artifact = this.#artifact(write.org, write.repository, write.digest, write.name, write.version);
    const now = this.#timestamp();
    const existing = this.#storage.get(id);
    const record: StoredStorageRecord = {
      ...write,
      name: artifact.name,
      version: artifact.version,
      id: existing?.id ?? this.#nextStorageId++,
      created_at: existing?.created_at ?? now,
      updated_at: now,
      writes: (existing?.writes ?? 0) + 1,
    };
    this.#storage.set(id, record);
    return record;
  }

  /** Deployment records, optionally narrowed; a copy, safe to keep. */
  deploymentRecords(filter: DeploymentFilter = {}): StoredDeploymentRecord[] {
    const matches = deploymentMatcher(filter);
    return [...this.#deployments.values()].filter(matches).map(copyDeployment);
  }

  /** How many deployment records there are, per status and per cluster; nothing is copied (150,000 records count in ms). */
  countDeployments(filter: DeploymentFilter = {}): DeploymentCounts {
    const matches = deploymentMatcher(filter);
    // A null-prototype map: a cluster may be named __proto__.
    const byCluster = Object.create(null) as DeploymentCounts["by_cluster"];
    const counts: DeploymentCounts = { total: 0, by_status: { deployed: 0, decommissioned: 0 }, by_cluster: byCluster };
    for (const record of this.#deployments.values()) {
      if (!matches(record)) continue;
      counts.total++;
      counts.by_status[record.status]++;
      const cluster = counts.by_cluster[record.cluster] ?? { total: 0, deployed: 0, decommissioned: 0 };
      counts.by_cluster[record.cluster] = cluster;
      cluster.total++;
      cluster[record.status]++;
    }
    return counts;
  }

  /** Up to `limit` deployment records created after the record `afterId` (0: from the first), oldest first; copies. */
  deploymentPage(filter: DeploymentFilter, afterId: number, limit: number): StoredDeploymentRecord[] {
    const matches = deploymentMatcher(filter);
    const page: StoredDeploymentRecord[] = [];
    for (let id = Math.max(0, afterId) + 1; id < this.#deploymentsById.length && page.length < limit; id++) {
      const record = this.#deploymentsById[id];
      if (record && matches(record)) page.push(copyDeployment(record));
    }
    return page;
  }

  storageRecords(filter: { org?: string; digest?: string } = {}): StoredStorageRecord[] {
    return [...this.#storage.values()]
      .filter((r) => (!filter.org || r.org.toLowerCase() === filter.org.toLowerCase()) && (!filter.digest || r.digest === filter.digest))
      .map((r) => structuredClone(r));
  }

  clear(): void {
    this.#deployments.clear();
    this.#deploymentsById = [];
    this.#storage.clear();
    this.#artifacts.clear();
    this.#links.clear();
  }
}

/** A deployment record as the service shows it. */
export function deploymentRecordView(r: StoredDeploymentRecord) {
  return {
    id: r.id,
    digest: r.digest,
    logical_environment: r.logical_environment,
    physical_environment: r.physical_environment,
    cluster: r.cluster,
    deployment_name: r.deployment_name,
    tags: r.tags,
    runtime_risks: r.runtime_risks,
    created: r.created,
    created_at: r.created,
    updated_at: r.updated_at,
    attestation_id: r.attestation_id,
  };
}

/** A storage record as the service shows it. */
export function storageRecordView(r: StoredStorageRecord) {
  return {
    id: r.id,
    name: r.name,
    digest: r.digest,
    ...(r.artifact_url !== undefined && { artifact_url: r.artifact_url }),
    registry_url: r.registry_url,
    ...(r.registry_repository !== undefined && { repository: r.registry_repository }),
    status: r.status,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
