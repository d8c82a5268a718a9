import {
  MAX_CLUSTER_ENTRIES,
  clusterDeploymentResult,
  createDeploymentRecordParams,
  createStorageRecordParams,
  deploymentRecordList,
  listByDigestParams,
  setClusterDeploymentRecordsParams,
  storageRecordList,
  type ClusterDeploymentResult,
  type CreateDeploymentRecordParams,
  type CreateStorageRecordParams,
  type DeploymentRecordList,
  type ListByDigestParams,
  type SetClusterDeploymentRecordsParams,
  type StorageRecordList,
} from "./schemas/artifact-metadata.js";
import { PartialClusterWriteError } from "./partial-write-error.js";
import { parseRequest, parseResponse } from "./schema-validation.js";
import type { Transport } from "./transport.js";

export interface CallOptions {
  signal?: AbortSignal;
}

const ROUTES = {
  deploymentRecord: "/orgs/{org}/artifacts/metadata/deployment-record",
  clusterRecords: "/orgs/{org}/artifacts/metadata/deployment-record/cluster/{cluster}",
  storageRecord: "/orgs/{org}/artifacts/metadata/storage-record",
  listDeployments: "/orgs/{org}/artifacts/{subject_digest}/metadata/deployment-records",
  listStorage: "/orgs/{org}/artifacts/{subject_digest}/metadata/storage-records",
} as const;

/** Deployment and storage records of an organization's artifacts (spec section 4.1). */
export class ArtifactMetadataApi {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Creates or updates one deployment record (an upsert keyed by cluster, environments and deployment name). */
  async createDeploymentRecord(params: CreateDeploymentRecordParams, options: CallOptions = {}): Promise<DeploymentRecordList> {
    const operation = `POST ${ROUTES.deploymentRecord}`;
    const { org, ...body } = parseRequest(createDeploymentRecordParams, params, operation);
    const response = await this.#transport.request({
      method: "POST",
      route: ROUTES.deploymentRecord,
      params: { org },
      body,
      signal: options.signal,
      safeToRetry: true,
    });
    return parseResponse(deploymentRecordList, response.data ?? { total_count: 0 }, operation);
  }

  /**
   * Sets the deployment records of a cluster. More than 1000 entries are sent as ordered chunks of
   * 1000 (each an upsert, so safe to retry), and the answers are merged into one result. A chunk after the
   * first that fails raises a PartialClusterWriteError holding what was written and what was not.
   */
  async setClusterDeploymentRecords(
    params: SetClusterDeploymentRecordsParams,
    options: CallOptions = {},
  ): Promise<ClusterDeploymentResult> {
    const operation = `POST ${ROUTES.clusterRecords}`;
    const { org, cluster, deployments, ...rest } = parseRequest(setClusterDeploymentRecordsParams, params, operation);
    const merged: ClusterDeploymentResult = { total_count: 0, deployment_records: [] };
    const chunkCount = Math.ceil(deployments.length / MAX_CLUSTER_ENTRIES);
    for (let start = 0; start < deployments.length; start += MAX_CLUSTER_ENTRIES) {
      const chunk = deployments.slice(start, start + MAX_CLUSTER_ENTRIES);
      let result: ClusterDeploymentResult;
      try {
        const response = await this.#transport.request({
          method: "POST",
          route: ROUTES.clusterRecords,
          params: { org, cluster },
          body: { ...rest, deployments: chunk },
          signal: options.signal,
          safeToRetry: true,
        });
        result = parseResponse(clusterDeploymentResult, response.data ?? { total_count: 0 }, operation);
      } catch (error) {
        // Before any chunk was written, the error says it all: nothing changed (or, unanswered, as for one call).
        if (start === 0) throw error;
        const outcome = PartialClusterWriteError.outcomeOf(error);
        const failedChunk = { index: start / MAX_CLUSTER_ENTRIES, start, count: chunk.length, outcome };
        const notWritten = deployments.slice(start);
        throw new PartialClusterWriteError({ operation, written: merged, writtenEntries: start, notWritten, failedChunk, chunkCount, cause: error });
      }
      merged.total_count += result.total_count;
      merged.deployment_records.push(...result.deployment_records);
      if (result.errors?.length) (merged.errors ??= []).push(...result.errors);
    }
    return merged;
  }

  /** Records where an artifact is stored (a registry), linked to a repository of the organization. */
  async createStorageRecord(params: CreateStorageRecordParams, options: CallOptions = {}): Promise<StorageRecordList> {
    const operation = `POST ${ROUTES.storageRecord}`;
    const { org, ...body } = parseRequest(createStorageRecordParams, params, operation);
    const response = await this.#transport.request({
      method: "POST",
      route: ROUTES.storageRecord,
      params: { org },
      body,
      signal: options.signal,
      safeToRetry: true,
    });
    return parseResponse(storageRecordList, response.data ?? { total_count: 0 }, operation);
  }

  /** Lists the deployment records of an artifact digest. */
  async listDeploymentRecords(params: ListByDigestParams, options: CallOptions = {}): Promise<DeploymentRecordList> {
    const operation = `GET ${ROUTES.listDeployments}`;
    const { org, subject_digest } = parseRequest(listByDigestParams, params, operation);
    const response = await this.#transport.request({
      method: "GET",
      route: ROUTES.listDeployments,
      params: { org, subject_digest },
      signal: options.signal,
    });
    return parseResponse(deploymentRecordList, response.data, operation);
  }

  /** Lists the storage records of an artifact digest that the caller's repositories allow it to see. */
  async listStorageRecords(params: ListByDigestParams, options: CallOptions = {}): Promise<StorageRecordList> {
    const operation = `GET ${ROUTES.listStorage}`;
    const { org, subject_digest } = parseRequest(listByDigestParams, params, operation);
    const response = await this.#transport.request({
      method: "GET",
      route: ROUTES.listStorage,
      params: { org, subject_digest },
      signal: options.signal,
    });
    return parseResponse(storageRecordList, response.data, operation);
  }
}
