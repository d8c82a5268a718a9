// The Kubernetes calls of the state store: read, create, replace and merge-patch ConfigMaps in one namespace, each
// with the request timeout, and every write conditional on the resourceVersion it carries (a merge patch carrying
// metadata.resourceVersion is refused with 409 when the object moved on, as an update is).
import { CoreV1Api, PatchStrategy, setHeaderOptions, type KubeConfig, type V1ConfigMap } from "@kubernetes/client-node";
import { ShiplogError } from "@shiplog/client";
import { callOptions, kubeErrorMessage, kubeStatus } from "../kube/call-options.js";

/** A write refused because the object changed (or came to exist) since it was read: read again. */
export class StateConflictError extends ShiplogError {
  constructor(message: string) {
    super("acknowledged_state_conflict", message);
  }
}

/** Reading the state failed (the API server down, RBAC): retried by the caller. */
export class AcknowledgedStateReadError extends ShiplogError {
  constructor(
    message: string,
    /** The API server's HTTP status, when it answered. */
    readonly status?: number,
  ) {
    super("acknowledged_state_read_failed", message);
  }
}

/** Writing the state failed: the API refused it, or it kept conflicting. */
export class AcknowledgedStateWriteError extends ShiplogError {
  constructor(message: string) {
    super("acknowledged_state_write_failed", message);
  }
}

/**
 * A write this replica may not make (it is not the leader): what it had to write stays in memory for its next write as
 * leader. A skipped write is never reported as written, since an intent not on disk must not be acted on.
 */
export class StateWriteFencedError extends ShiplogError {
  constructor(readonly unwritten: number) {
    super(
      "acknowledged_state_not_leader",
      `not writing the acknowledged state: this replica is not the leader (${unwritten} changes kept in memory)`,
    );
  }
}

/** What a write answered: the new resourceVersion, and the object's uid. */
export interface WrittenObject {
  version: string;
  uid: string | undefined;
}

/** ConfigMap payload as written: text data and binary data. */
export interface ConfigMapPayload {
  data: Record<string, string>;
  binaryData: Record<string, Buffer>;
}

/** What the API server counts against the 1 MiB limit: data values plus decoded binaryData. */
export function payloadBytes(payload: { data?: Record<string, string>; binaryData?: Record<string, Buffer | null> }): number {
  let bytes = 0;
  for (const value of Object.values(payload.data ?? {})) bytes += Buffer.byteLength(value);
  for (const value of Object.values(payload.binaryData ?? {})) bytes += value?.length ?? 0;
  return bytes;
}

/**
 * A write needs only the new resourceVersion: the API server answers with the metadata alone when asked (else with
 * the whole object, up to 1 MiB a write, parsed for nothing).
 */
const METADATA_ONLY = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json";

const base64 = (binary: Record<string, Buffer | null>) =>
  Object.fromEntries(Object.entries(binary).map(([k, v]) => [k, v === null ? null : v.toString("base64")]));

/** ConfigMaps of one namespace, as the state store uses them. */
export class StateConfigMaps {
  readonly #api: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    readonly namespace: string,
    private readonly timeoutMs: number,
    private readonly labels: Record<string, string>,
  ) {
    this.#api = kubeConfig.makeApiClient(CoreV1Api);
  }

  /** The ConfigMap, or undefined when it does not exist. */
  async read(name: string): Promise<V1ConfigMap | undefined> {
    try {
      return await this.#api.readNamespacedConfigMap({ name, namespace: this.namespace }, callOptions(this.timeoutMs));
    } catch (error) {
      if (kubeStatus(error) === 404) return undefined;
      throw new AcknowledgedStateReadError(
        `reading ConfigMap ${this.namespace}/${name} failed: ${kubeErrorMessage(error)}`,
        kubeStatus(error),
      );
    }
  }

  /**
   * Writes the whole ConfigMap: created when `version` is null, else replaced if still at `version`. Resolves with
   * the new resourceVersion; StateConflictError when it exists already, or moved on, or is gone.
   */
  async put(name: string, version: string | null, payload: ConfigMapPayload): Promise<string> {
    return (await this.putObject(name, version, payload)).version;
  }

  /** As put(), resolving with the new resourceVersion and the object's uid (which a replace keeps, a create makes). */
  async putObject(name: string, version: string | null, payload: ConfigMapPayload): Promise<WrittenObject> {
    const body: V1ConfigMap = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: this.namespace, labels: this.labels, ...(version !== null && { resourceVersion: version }) },
      data: payload.data,
      binaryData: base64(payload.binaryData) as Record<string, string>,
    };
    const options = setHeaderOptions("Accept", METADATA_ONLY, callOptions(this.timeoutMs));
    return this.#written(name, () =>
      version === null
        ? this.#api.createNamespacedConfigMap({ namespace: this.namespace, body }, options)
        : this.#api.replaceNamespacedConfigMap({ name, namespace: this.namespace, body }, options),
    );
  }

  /** Merges `data` and `binaryData` (null removes a key) into the ConfigMap if still at `version`. */
  async patch(
    name: string,
    version: string,
    patch: { data?: Record<string, string>; binaryData?: Record<string, Buffer | null> },
  ): Promise<string> {
    const body = {
      metadata: { resourceVersion: version },
      ...(patch.data && { data: patch.data }),
      ...(patch.binaryData && { binaryData: base64(patch.binaryData) }),
    };
    const options = setHeaderOptions(
      "Accept",
      METADATA_ONLY,
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch, callOptions(this.timeoutMs)),
    );
    return (await this.#written(name, () => this.#api.patchNamespacedConfigMap({ name, namespace: this.namespace, body }, options)))
      .version;
  }

  async #written(name: string, write: () => Promise<V1ConfigMap>): Promise<WrittenObject> {
    try {
      const written = await write();
      return { version: written.metadata?.resourceVersion ?? "", uid: written.metadata?.uid };
    } catch (error) {
      const status = kubeStatus(error);
      // 409: AlreadyExists on create, Conflict on update; 404: replaced or patched after someone deleted it.
      if (status === 409 || status === 404) throw new StateConflictError(`ConfigMap ${this.namespace}/${name}: ${kubeErrorMessage(error)}`);
      throw new AcknowledgedStateWriteError(`writing ConfigMap ${this.namespace}/${name} failed: ${kubeErrorMessage(error)}`);
    }
  }
}
