import { ArtifactMetadataApi } from "./artifact-metadata.js";
import { GitApi } from "./git.js";
import { Transport, type RouteRequest, type ServiceResponse, type TransportOptions } from "./transport.js";

export type ClientOptions = TransportOptions;

/** The typed client for every endpoint shiplog covers, grouped by area as the spec groups them. */
export class ShiplogClient {
  readonly transport: Transport;
  /** Deployment and storage records (spec 4.1). */
  readonly artifacts: ArtifactMetadataApi;
  /** Git tag objects and references (spec 4.2). */
  readonly git: GitApi;

  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(options);
    this.artifacts = new ArtifactMetadataApi(this.transport);
    this.git = new GitApi(this.transport);
  }

  /** Sends a request to any route, with the client's headers, retries and typed errors. */
  request<T = unknown>(request: RouteRequest): Promise<ServiceResponse<T>> {
    return this.transport.request<T>(request);
  }
}
