// @shiplog/client/schemas holds the schemas a user checks the client's requests and answers with, and no other: each
// is one an endpoint of the registry is made of (its parameters, its answer, or a part of either), or what a wrapper
// method checks its parameters with, or one of the few named below with their reason.
import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "@shiplog/client/endpoints";
import * as schemas from "@shiplog/client/schemas";

/** Schemas no endpoint entry is made of, each with the user it has. */
const NAMED: Record<string, string> = {
  createAnnotatedTagParams: "git.createAnnotatedTag's parameters (a tag object and its reference, in two calls)",
  markAllAsReadAndWaitParams: "notifications.markAllAsReadAndWait's parameters",
  chooseProjectParams: "imports.chooseProject's parameters",
  eventFeed: "the feed activity.list and activity.poll take",
  pollCheckpoint: "a poller's checkpoint, as a checkpoint store keeps it",
  serviceErrorBody: "the body of the service's error answers",
};

interface ZodLike {
  _zod: { def: Record<string, unknown> };
}
const isSchema = (value: unknown): value is ZodLike => typeof value === "object" && value !== null && "_zod" in value;

/** Every schema `root` is made of, itself included (object shapes, unions' options, arrays' elements, wrappers). */
function partsOf(root: unknown, into = new Set<unknown>()): Set<unknown> {
  const visit = (value: unknown): void => {
    if (isSchema(value)) {
      if (into.has(value)) return;
      into.add(value);
      for (const part of Object.values(value._zod.def)) visit(part);
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
      Object.values(value).forEach(visit);
    }
  };
  visit(root);
  return into;
}

describe("@shiplog/client/schemas", () => {
  const exported = Object.entries(schemas).filter(([, value]) => isSchema(value));
  const parts = new Set<unknown>();
  for (const endpoint of Object.values(ENDPOINTS) as { params: unknown; response?: unknown }[]) {
    partsOf(endpoint.params, parts);
    partsOf(endpoint.response, parts);
  }

  it("finds the parts an endpoint is made of, and not a schema made apart from it", () => {
    const entry = ENDPOINTS["git/create-ref"];
    expect(partsOf(entry.params).has(entry.params)).toBe(true);
    expect(parts.has(schemas.gitRef)).toBe(true);
    expect(parts.has(schemas.serviceErrorBody)).toBe(false);
  });

  it("exports only schemas an endpoint is made of, or one named with its user", () => {
    expect(exported.length).toBeGreaterThan(40);
    const strays = exported.filter(([name, value]) => !parts.has(value) && !(name in NAMED)).map(([name]) => name);
    expect(strays, "an endpoint is not made of these: export them only with a user (NAMED)").toEqual([]);
  });

  it("every named schema is exported and made apart from the endpoints (else it needs no name here)", () => {
    for (const name of Object.keys(NAMED)) {
      const value = (schemas as Record<string, unknown>)[name];
      expect(isSchema(value), name).toBe(true);
      expect(parts.has(value), name).toBe(false);
    }
  });
});
