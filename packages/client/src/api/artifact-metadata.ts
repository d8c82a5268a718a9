import { EndpointCaller, operationName } from "../endpoints/endpoint-call.js";
import type { CallOptions } from "../endpoints/call-options.js";
import { ENDPOINTS } from "../endpoints/registry.js";
import { PartialClusterWriteError } from "./partial-write-error.js";
import { MAX_CLUSTER_ENTRIES } from "../schemas/artifact-metadata.js";
import type {
  ClusterDeploymentResult,
  CreateDeploymentRecordParams,
  CreateStorageRecordParams,
  DeploymentRecordList,
  ListByDigestParams,
  SetClusterDeploymentRecordsParams,
  StorageRecordList,
} from "../model/artifact-metadata.js";
import type { Transport } from "../transport/transport.js";

/** Deployment and storage records of an organization's artifacts (spec section 4.1). */
export class ArtifactMetadataApi {
  readonly #calls: EndpointCaller;

  constructor(transport: Transport) {
    this.#calls = new EndpointCaller(transport);
  }

  /** Creates or updates one deployment record (an upsert keyed by cluster, environments and deployment name). */
  createDeploymentRecord(params: CreateDeploymentRecordParams, options: CallOptions = {}): Promise<DeploymentRecordList> {
    return this.#calls.call("orgs/create-artifact-deployment-record", params, options);
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
    const id = "orgs/set-cluster-deployment-records";
    const checked = this.#calls.check(id, params);
    const { deployments } = checked;
    const merged: ClusterDeploymentResult = { total_count: 0, deployment_records: [] };
    const chunkCount = Math.ceil(deployments.length / MAX_CLUSTER_ENTRIES);
    for (let start = 0; start < deployments.length; start += MAX_CLUSTER_ENTRIES) {
      const chunk = deployments.slice(start, start + MAX_CLUSTER_ENTRIES);
      let result: ClusterDeploymentResult;
      try {
        result = (await this.#calls.send(id, { ...checked, deployments: chunk }, options)).data;
      } catch (error) {
        // Before any chunk was written, the error says it all: nothing changed (or, unanswered, as for one call).
        if (start === 0) throw error;
        const outcome = PartialClusterWriteError.outcomeOf(error);
        const failedChunk = { index: start / MAX_CLUSTER_ENTRIES, start, count: chunk.length, outcome };
        const notWritten = deployments.slice(start);
        const operation = operationName(ENDPOINTS[id]);
        throw new PartialClusterWriteError({
          operation,
          written: merged,
          writtenEntries: start,
          notWritten,
          failedChunk,
          chunkCount,
          cause: error,
        });
      }
      merged.total_count += result.total_count;
      merged.deployment_records.push(...result.deployment_records);
      if (result.errors?.length) {
        merged.errors ??= [];
        merged.errors.push(...result.errors);
      }
    }
    return merged;
  }

  /** Records where an artifact is stored (a registry), linked to a repository of the organization. */
  createStorageRecord(params: CreateStorageRecordParams, options: CallOptions = {}): Promise<StorageRecordList> {
    return this.#calls.call("orgs/create-artifact-storage-record", params, options);
  }

  /** Lists the deployment records of an artifact digest. */
  listDeploymentRecords(params: ListByDigestParams, options: CallOptions = {}): Promise<DeploymentRecordList> {
    return this.#calls.call("orgs/list-artifact-deployment-records", params, options);
  }

  /** Lists the storage records of an artifact digest that the caller's repositories allow it to see. */
  listStorageRecords(params: ListByDigestParams, options: CallOptions = {}): Promise<StorageRecordList> {
    return this.#calls.call("orgs/list-artifact-storage-records", params, options);
  }
}
