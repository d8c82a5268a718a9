// Acknowledged state persisted in a ConfigMap in the controller's namespace, so a restarted or newly elected
// controller knows what the service holds: records of workloads deleted while it was down are decommissioned, and
// records that did not change are not posted again.
// - Compact (acknowledged-state-encoding.ts): gzip of text columns plus the raw digests, in `binaryData`; about
//   37 bytes per record when every record has its own digest: 10,000 records take ~0.37 MB of the 1 MiB limit.
// - Optimistic concurrency: every write carries the resourceVersion last read; a 409 means someone else wrote
//   (a previous leader's last write): read again, apply our changes since the last write on top, retry.
// - The state belongs to one service (API URL), organization and cluster; state written for another, or without
//   that identity, is ignored (and replaced).
import { ShiplogError } from "@shiplog/client";
import { CoreV1Api, type KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import type { Logger } from "pino";
import type { AcknowledgedRecord, AcknowledgedStore } from "./acknowledged-state.js";
import {
  AcknowledgedStateFormatError,
  ACKNOWLEDGED_STATE_FORMAT,
  decodeAcknowledgedState,
  encodeAcknowledgedState,
  type EncodedAcknowledgedState,
} from "./acknowledged-state-encoding.js";
import { callOptions, kubeErrorMessage, kubeStatus } from "./kube-call-options.js";

/** Kubernetes' limit on the data of one ConfigMap (data plus binaryData). */
export const CONFIGMAP_MAX_BYTES = 1024 * 1024;
const TEXT_KEY = "records.gz";
const DIGESTS_KEY = "digests";
/** The write-ahead set (AcknowledgedStore#inFlight), encoded as the acknowledged records are. */
const IN_FLIGHT_TEXT_KEY = "in-flight.gz";
const IN_FLIGHT_DIGESTS_KEY = "in-flight-digests";
const MAX_CONFLICT_RETRIES = 5;
const API_URL_KEY = "api-url";

/** The state does not fit in one ConfigMap. */
export class AcknowledgedStateTooLargeError extends ShiplogError {
  constructor(
    readonly bytes: number,
    readonly records: number,
  ) {
    super("acknowledged_state_too_large", `acknowledged state of ${records} records needs ${bytes} bytes, over the ConfigMap limit of ${CONFIGMAP_MAX_BYTES}`);
  }
}

/** Writing the state kept failing with conflicts, or the API refused it. */
export class AcknowledgedStateWriteError extends ShiplogError {
  constructor(message: string) {
    super("acknowledged_state_write_failed", message);
  }
}

/** Settings of the ConfigMap store. */
export interface ConfigMapStoreOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  /** Whose records these are: state written for another service, organization or cluster is not used. */
  org: string;
  cluster: string;
  /** The service's API base URL: what one service acknowledged says nothing about another. */
  apiUrl: string;
  /** Who writes (the pod name), recorded in the ConfigMap for operators. */
  writer: string;
  requestTimeoutMs: number;
  logger: Logger;
  /** Checked right before every write (leader fencing); a write is skipped when it says no. */
  mayWrite?: () => boolean;
  /** Called once a write's request has been issued, before its answer (the crash-matrix test's hook). */
  onWriteStarted?: () => void;
}

/** The outcome of the last write, for metrics and logs. */
export interface StateWriteInfo {
  bytes: number;
  records: number;
  /** Entries in the write-ahead (in flight) set. */
  inFlight: number;
  conflicts: number;
}

/** Acknowledged state kept in memory and persisted in one ConfigMap. */
export class ConfigMapAcknowledgedStore implements AcknowledgedStore {
  readonly #api: CoreV1Api;
  readonly #options: ConfigMapStoreOptions;
  #records = new Map<string, AcknowledgedRecord>();
  /** Changes since the last successful write: a record, or null for a forgotten one. */
  readonly #changes = new Map<string, AcknowledgedRecord | null>();
  #inFlight = new Map<string, AcknowledgedRecord>();
  /**
   * The acknowledged records' encoding, kept while they do not change: an intent write (only the in-flight set
   * changed) does not encode 150,000 records again.
   */
  #encoded: { version: number; value: EncodedAcknowledgedState } | undefined;
  #version = 0;
  /** In-flight changes since the last successful write, as #changes. */
  readonly #inFlightChanges = new Map<string, AcknowledgedRecord | null>();
  /** resourceVersion of the ConfigMap as last read or written; undefined when it does not exist (yet). */
  #resourceVersion: string | undefined;
  #writing: Promise<StateWriteInfo | undefined> | undefined;
  lastWrite: StateWriteInfo | undefined;

  constructor(options: ConfigMapStoreOptions) {
    this.#options = options;
    this.#api = options.kubeConfig.makeApiClient(CoreV1Api);
  }

  /** Reads the ConfigMap (what earlier runs and leaders acknowledged); changes not yet written stay on top. */
  async load(): Promise<void> {
    const { namespace, name, org, cluster, apiUrl, logger } = this.#options;
    let configMap: V1ConfigMap | undefined;
    try {
      configMap = await this.#api.readNamespacedConfigMap({ name, namespace }, callOptions(this.#options.requestTimeoutMs));
    } catch (error) {
      if (kubeStatus(error) !== 404) throw error;
    }
    const records = new Map<string, AcknowledgedRecord>();
    const inFlight = new Map<string, AcknowledgedRecord>();
    this.#resourceVersion = configMap?.metadata?.resourceVersion;
    if (configMap) {
      const data = configMap.data ?? {};
      const text = configMap.binaryData?.[TEXT_KEY];
      const digests = configMap.binaryData?.[DIGESTS_KEY] ?? "";
      if (data.org !== org || data.cluster !== cluster || data[API_URL_KEY] !== apiUrl) {
        logger.warn(
          { configMap: `${namespace}/${name}`, org: data.org ?? null, cluster: data.cluster ?? null, apiUrl: data[API_URL_KEY] ?? null },
          "acknowledged state belongs to another service, organization or cluster; starting without it",
        );
      } else if (text === undefined) {
        logger.warn({ configMap: `${namespace}/${name}` }, `acknowledged state has no ${TEXT_KEY}; starting without it`);
      } else {
        try {
          for (const record of decodeAcknowledgedState({ text: Buffer.from(text, "base64"), digests: Buffer.from(digests, "base64") })) records.set(record.key, record);
          const flightText = configMap.binaryData?.[IN_FLIGHT_TEXT_KEY];
          if (flightText !== undefined) {
            const flightDigests = Buffer.from(configMap.binaryData?.[IN_FLIGHT_DIGESTS_KEY] ?? "", "base64");
            for (const record of decodeAcknowledgedState({ text: Buffer.from(flightText, "base64"), digests: flightDigests })) inFlight.set(record.key, record);
          }
        } catch (error) {
          if (!(error instanceof AcknowledgedStateFormatError)) throw error;
          logger.error({ configMap: `${namespace}/${name}`, err: error.message, code: error.code }, "acknowledged state unreadable; starting without it");
        }
      }
    }
    for (const [key, change] of this.#changes) {
      if (change) records.set(key, change);
      else records.delete(key);
    }
    for (const [key, change] of this.#inFlightChanges) {
      if (change) inFlight.set(key, change);
      else inFlight.delete(key);
    }
    this.#records = records;
    this.#version += 1;
    this.#inFlight = inFlight;
    logger.info(
      { configMap: `${namespace}/${name}`, records: records.size, inFlight: inFlight.size, resourceVersion: this.#resourceVersion ?? null },
      "acknowledged state loaded",
    );
  }

  all(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#records;
  }

  inFlight(): ReadonlyMap<string, AcknowledgedRecord> {
    return this.#inFlight;
  }

  intend(records: readonly AcknowledgedRecord[]): void {
    for (const record of records) {
      if ((record.entry.status ?? "deployed") !== "deployed") continue;
      this.#inFlight.set(record.key, record);
      this.#inFlightChanges.set(record.key, record);
    }
  }

  acknowledge(records: readonly AcknowledgedRecord[]): void {
    for (const record of records) {
      if (this.#inFlight.delete(record.key)) this.#inFlightChanges.set(record.key, null);
      this.#version += 1;
      if (record.entry.status === "decommissioned") {
        if (!this.#records.delete(record.key)) continue;
        this.#changes.set(record.key, null);
      } else {
        this.#records.set(record.key, record);
        this.#changes.set(record.key, record);
      }
    }
  }

  /** Changes acknowledged since the last successful write. */
  get unwritten(): number {
    return this.#changes.size + this.#inFlightChanges.size;
  }

  /** Writes the state if anything changed since the last write; resolves with what was written, if anything. */
  async persist(): Promise<void> {
    await this.write();
  }

  /** As persist(), returning what was written (undefined when nothing needed writing or writing was not allowed). */
  write(): Promise<StateWriteInfo | undefined> {
    const run = (this.#writing ?? Promise.resolve(undefined)).catch(() => undefined).then(() => this.#write());
    this.#writing = run;
    return run;
  }

  async #write(): Promise<StateWriteInfo | undefined> {
    if (this.unwritten === 0) return undefined;
    const { namespace, name, logger } = this.#options;
    let conflicts = 0;
    for (;;) {
      if (this.#options.mayWrite && !this.#options.mayWrite()) {
        logger.debug({ configMap: `${namespace}/${name}` }, "not writing acknowledged state: not the leader");
        return undefined;
      }
      const written = new Map(this.#changes);
      const writtenInFlight = new Map(this.#inFlightChanges);
      if (this.#encoded?.version !== this.#version) this.#encoded = { version: this.#version, value: encodeAcknowledgedState(this.#records.values()) };
      const encoded = this.#encoded.value;
      const inFlight = encodeAcknowledgedState(this.#inFlight.values());
      const body = this.#configMap(encoded, inFlight);
      // What the API server counts against the limit: data values plus decoded binaryData.
      const bytes =
        Object.values(body.data ?? {}).reduce((n, v) => n + Buffer.byteLength(v), 0) +
        encoded.text.length +
        encoded.digests.length +
        inFlight.text.length +
        inFlight.digests.length;
      if (bytes > CONFIGMAP_MAX_BYTES) throw new AcknowledgedStateTooLargeError(bytes, this.#records.size);
      try {
        const request =
          this.#resourceVersion === undefined
            ? this.#api.createNamespacedConfigMap({ namespace, body }, callOptions(this.#options.requestTimeoutMs))
            : this.#api.replaceNamespacedConfigMap({ name, namespace, body }, callOptions(this.#options.requestTimeoutMs));
        this.#options.onWriteStarted?.();
        const result = await request;
        this.#resourceVersion = result.metadata?.resourceVersion;
        // Forget only what this write carried: acknowledgements made while it was in flight are still to write.
        for (const [key, change] of written) if (this.#changes.get(key) === change) this.#changes.delete(key);
        for (const [key, change] of writtenInFlight) if (this.#inFlightChanges.get(key) === change) this.#inFlightChanges.delete(key);
        this.lastWrite = { bytes, records: this.#records.size, inFlight: this.#inFlight.size, conflicts };
        logger.debug({ configMap: `${namespace}/${name}`, ...this.lastWrite }, "acknowledged state written");
        return this.lastWrite;
      } catch (error) {
        // 409: created or updated by someone else since we read it (AlreadyExists on create, Conflict on update).
        if (kubeStatus(error) !== 409) throw new AcknowledgedStateWriteError(`writing ConfigMap ${namespace}/${name} failed: ${kubeErrorMessage(error)}`);
        conflicts += 1;
        if (conflicts > MAX_CONFLICT_RETRIES) throw new AcknowledgedStateWriteError(`writing ConfigMap ${namespace}/${name}: still conflicting after ${MAX_CONFLICT_RETRIES} re-reads`);
        logger.info({ configMap: `${namespace}/${name}`, conflicts }, "acknowledged state changed under us; reading it again and merging");
        await this.load();
      }
    }
  }

  #configMap(encoded: EncodedAcknowledgedState, inFlight: EncodedAcknowledgedState): V1ConfigMap {
    const { namespace, name, org, cluster, apiUrl, writer } = this.#options;
    const metadata: V1ConfigMap["metadata"] = {
      name,
      namespace,
      labels: { "app.kubernetes.io/part-of": "shiplog", "app.kubernetes.io/component": "acknowledged-state" },
    };
    if (this.#resourceVersion !== undefined) metadata.resourceVersion = this.#resourceVersion;
    return {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata,
      data: {
        format: ACKNOWLEDGED_STATE_FORMAT,
        org,
        cluster,
        [API_URL_KEY]: apiUrl,
        records: String(encoded.records),
        "in-flight": String(inFlight.records),
        "written-by": writer,
        "written-at": new Date().toISOString(),
      },
      binaryData: {
        [TEXT_KEY]: encoded.text.toString("base64"),
        [DIGESTS_KEY]: encoded.digests.toString("base64"),
        [IN_FLIGHT_TEXT_KEY]: inFlight.text.toString("base64"),
        [IN_FLIGHT_DIGESTS_KEY]: inFlight.digests.toString("base64"),
      },
    };
  }
}
