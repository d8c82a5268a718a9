// The one call path every endpoint takes, driven by its registry entry: parameters checked (nothing is sent when
// one breaks a rule), split into path, query and body, sent through the transport with the entry's retry safety,
// and the answer checked against the entry's schema. The API classes are thin wrappers over it.
import { GoneError, RetiredEndpointError } from "../errors/errors.js";
import type { CallOptions, PageOptions } from "./call-options.js";
import { checkPageOptions, pageResponses, type PageRequest } from "./pagination.js";
import type { RouteRequest, ServiceResponse } from "../transport/route-request.js";
import { parseRequest, parseResponse } from "../schemas/validation.js";
import type { Transport } from "../transport/transport.js";
import type { Endpoint, PageLimits, Retirement } from "./endpoint.js";
import { ENDPOINTS } from "./registry.js";
import type { CheckedOf, ItemOf, ListOperationId, OperationId, ParamsOf, ResultOf } from "./registry.js";

export type { CallOptions } from "./call-options.js";

/** What one call answered: its parsed result, with the status and headers it came with. */
export interface CallAnswer<T> {
  data: T;
  status: number;
  headers: Headers;
}

/** `METHOD route`, as errors and logs name an operation. */
export function operationName(endpoint: Pick<Endpoint, "method" | "route">): string {
  return `${endpoint.method} ${endpoint.route}`;
}

const BODY_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH"]);

/** The route request for checked parameters: the route's placeholders, the entry's query names, the rest as body. */
export function routeRequest(endpoint: Endpoint, checked: Record<string, unknown>, signal?: AbortSignal): RouteRequest {
  const params: Record<string, string | number> = {};
  const query: Record<string, string | number | boolean | undefined> = {};
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(checked)) {
    if (endpoint.route.includes(`{${name}}`)) params[name] = value as string | number;
    else if (endpoint.query?.includes(name)) query[name] = value as string | number | boolean | undefined;
    else body[name] = value;
  }
  const sendsBody = endpoint.body ?? BODY_METHODS.has(endpoint.method);
  return {
    method: endpoint.method,
    route: endpoint.route,
    params,
    query,
    ...(sendsBody ? { body } : {}),
    safeToRetry: endpoint.retry === "safe",
    ...(signal ? { signal } : {}),
  };
}

/** The result an answer's body holds, checked against the entry's response schema (nothing for a 204 endpoint). */
export function readAnswer(endpoint: Endpoint, data: unknown): unknown {
  if (!endpoint.response) return undefined;
  return parseResponse(endpoint.response, data ?? endpoint.emptyAnswer, operationName(endpoint));
}

/** A list operation as code that pages it itself (the pollers) needs it. */
export interface Listing<T> {
  /** The request of the listing's pages, parameters checked. */
  request: RouteRequest;
  limits: PageLimits;
  /** `METHOD route`, as errors name it. */
  operation: string;
  /** One page's items, checked against the entry's schema. */
  readPage(body: unknown): T[];
}

/** A list operation with its parameters checked (throws RequestValidationError when one breaks a rule). */
export function listing<K extends ListOperationId>(id: K, params: ParamsOf<K>): Listing<ItemOf<K>> {
  const endpoint: Endpoint = ENDPOINTS[id];
  const operation = operationName(endpoint);
  const checked = parseRequest(endpoint.params, params, operation);
  const readPage = (body: unknown) => readAnswer(endpoint, body) as ItemOf<K>[];
  return { request: routeRequest(endpoint, checked), limits: endpoint.pages!, operation, readPage };
}

const warned = new Set<string>();

/** Emits a retired family's DeprecationWarning, once per process. */
function warnRetired(retired: Retirement): void {
  if (warned.has(retired.warningCode)) return;
  warned.add(retired.warningCode);
  process.emitWarning(
    `${retired.what} of the service were retired and closed at ${retired.at}; ` +
      "calls succeed only against a service that still runs them (an emulator set before the cutoff).",
    { type: "DeprecationWarning", code: retired.warningCode },
  );
}

/** A retired endpoint's 410, as the error that says so. */
function retiredError(error: GoneError, retired: Retirement): RetiredEndpointError {
  const { status, method, route, serviceMessage, documentationUrl, requestId, body } = error;
  const acceptedPermissions = [...error.acceptedPermissions];
  const details = { status, method, route, serviceMessage, documentationUrl, acceptedPermissions, requestId, body };
  return new RetiredEndpointError(details, retired.at, retired.what);
}

/** The client's calls of registry endpoints over one transport. */
export class EndpointCaller {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** Calls an operation with its parameters; its parsed result. */
  async call<K extends OperationId>(id: K, params: ParamsOf<K>, options: CallOptions = {}): Promise<ResultOf<K>> {
    return (await this.send(id, this.check(id, params), options)).data;
  }

  /** Checks an operation's parameters; throws RequestValidationError naming each field and rule. */
  check<K extends OperationId>(id: K, params: ParamsOf<K>): CheckedOf<K> {
    const endpoint: Endpoint = ENDPOINTS[id];
    return parseRequest(endpoint.params, params, operationName(endpoint)) as CheckedOf<K>;
  }

  /** Sends a call whose parameters were checked; its result with the status and headers it came with. */
  async send<K extends OperationId>(id: K, checked: CheckedOf<K>, options: CallOptions = {}): Promise<CallAnswer<ResultOf<K>>> {
    const endpoint: Endpoint = ENDPOINTS[id];
    const response = await this.#request(endpoint, routeRequest(endpoint, checked as Record<string, unknown>, options.signal));
    const data = readAnswer(endpoint, response.data) as ResultOf<K>;
    // Headers are built when read: most calls never read one.
    return {
      data,
      status: response.status,
      get headers() {
        return response.headers;
      },
    };
  }

  /**
   * Iterates every item of a list operation, page after page. The parameters and page options are checked when
   * this is called (a RequestValidationError is thrown here), the pages requested as the iteration goes.
   */
  list<K extends ListOperationId>(id: K, params: ParamsOf<K>, options: PageOptions = {}): AsyncGenerator<ItemOf<K>, void, undefined> {
    const endpoint: Endpoint = ENDPOINTS[id];
    const limits = endpoint.pages!;
    checkPageOptions(operationName(endpoint), options, limits);
    const request = routeRequest(endpoint, this.check(id, params) as Record<string, unknown>);
    const page = { perPage: options.per_page ?? limits.defaultPerPage, page: options.page, signal: options.signal };
    return this.#items<K>(endpoint, request, page);
  }

  async *#items<K extends ListOperationId>(endpoint: Endpoint, request: RouteRequest, page: PageRequest): AsyncGenerator<ItemOf<K>, void> {
    if (endpoint.retired) warnRetired(endpoint.retired);
    for await (const response of pageResponses(this.#transport, request, page)) {
      yield* readAnswer(endpoint, response.data) as ItemOf<K>[];
    }
  }

  async #request(endpoint: Endpoint, request: RouteRequest): Promise<ServiceResponse> {
    const retired = endpoint.retired;
    if (!retired) return this.#transport.request(request);
    warnRetired(retired);
    try {
      return await this.#transport.request(request);
    } catch (error) {
      throw error instanceof GoneError ? retiredError(error, retired) : error;
    }
  }
}
