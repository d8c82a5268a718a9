// The endpoint registry's own consistency, as pure data (run on the sources): every route parameter is a
// parameter of the entry, what goes in the query is named, what is left goes in a body only where one is sent,
// and the entries that page answer arrays.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { endpointList } from "../src/endpoints/registry.js";
import { routeRequest } from "../src/endpoints/endpoint-call.js";

const endpoints = endpointList();

function keysOf(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { shape?: Record<string, unknown> }).shape;
  if (!shape) throw new Error("a registry entry's params must be an object schema");
  return Object.keys(shape);
}

describe.each(endpoints)("$operationId", (endpoint) => {
  const keys = keysOf(endpoint.params);
  const placeholders = [...endpoint.route.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!);

  it("takes every route parameter, and names only parameters it takes as query", () => {
    expect(keys).toEqual(expect.arrayContaining(placeholders));
    expect(keys).toEqual(expect.arrayContaining([...(endpoint.query ?? [])]));
  });

  it("sends a body only where the method carries one, and leaves nothing unsent", () => {
    const checked = Object.fromEntries(keys.map((key) => [key, "x"]));
    const request = routeRequest(endpoint, checked);
    const sent = [
      ...Object.keys(request.params ?? {}),
      ...Object.keys(request.query ?? {}),
      ...Object.keys((request.body as object | undefined) ?? {}),
    ];
    expect(sent.sort()).toEqual([...keys].sort());
    if (endpoint.method === "GET" || endpoint.method === "DELETE") expect(request.body).toBeUndefined();
  });

  it("retries only what is safe, as its entry says", () => {
    expect(routeRequest(endpoint, {}).safeToRetry).toBe(endpoint.retry === "safe");
  });
});

describe.each(endpoints.filter((endpoint) => endpoint.pages !== undefined))("$operationId (a list)", (endpoint) => {
  it("pages an array answer, within the spec's per_page rules", () => {
    expect(endpoint.response?.safeParse([]).success).toBe(true);
    expect(endpoint.pages!.defaultPerPage).toBeLessThanOrEqual(endpoint.pages!.maxPerPage);
  });
});
