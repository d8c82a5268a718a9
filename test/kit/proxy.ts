// An HTTP proxy in front of the fake cluster that records every Kubernetes API request as the RBAC authorizer sees
// it (verb, group, resource, namespace, name), so a test can compare what the controller calls with its RBAC.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ResourceRequest } from "./kube-manifests.js";

/** A running recording proxy. */
export interface RecordingProxy {
  url: string;
  /** Resource requests seen so far. */
  requests: ResourceRequest[];
  /** Paths of requests that are not resource requests (discovery, /version). */
  nonResource: string[];
  close(): Promise<void>;
}

const VERBS: Record<string, string> = { POST: "create", PUT: "update", PATCH: "patch" };

/** Parses an API path and method into the request the RBAC authorizer evaluates. */
export function resourceRequest(method: string, rawUrl: string): ResourceRequest | undefined {
  const url = new URL(rawUrl, "http://proxy");
  const parts = url.pathname.split("/").filter(Boolean);
  let rest: string[];
  let group: string;
  if (parts[0] === "api" && parts.length >= 3) {
    group = "";
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 4) {
    group = parts[1]!;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  if (rest[0] === "namespaces" && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  if (!resource) return undefined;
  let verb: string;
  if (method === "GET") verb = url.searchParams.get("watch") === "true" ? "watch" : name ? "get" : "list";
  else if (method === "DELETE") verb = name ? "delete" : "deletecollection";
  else verb = VERBS[method] ?? method.toLowerCase();
  return {
    verb,
    group,
    resource: subresource ? `${resource}/${subresource}` : resource,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}

/** Starts a proxy on 127.0.0.1 that forwards to `target` and records each request. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  const requests: ResourceRequest[] = [];
  const nonResource: string[] = [];
  const server: Server = createServer((req, res) => {
    const parsed = resourceRequest(req.method ?? "GET", req.url ?? "/");
    if (parsed) requests.push(parsed);
    else nonResource.push(req.url ?? "/");
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.flushHeaders();
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    res.on("close", () => forward.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    nonResource,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
