import { closeLoopbackServers, freePort, serve } from "../../../test/kit/loopback.js";
import { signal } from "../../../test/kit/events.js";
import { VirtualClock } from "../../../test/kit/virtual-clock.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  AbortedError,
  NetworkError,
  RateLimitedError,
  ShiplogClient,
  TimeoutError,
  UnavailableError,
  UnexpectedStatusError,
} from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

const STORAGE_ROUTE = "/orgs/:org/artifacts/metadata/storage-record";
const digest = `sha256:${"e".repeat(64)}`;
const storageParams = { org: "acme", name: "web", digest, registry_url: "https://ghcr.io/", github_repository: "web" };

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());
afterEach(async () => {
  await closeLoopbackServers();
  emulator.faults.clear();
  emulator.requests.clear();
});

const fastRetry = { retries: 4, minDelayMs: 1, maxDelayMs: 5 };

describe("transport", () => {
  it("sends the service's media type, the API version and a user agent, and the token as Bearer", async () => {
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, userAgent: "my-tool/2.0" });
    await client.artifacts.createStorageRecord(storageParams);
    const [entry] = emulator.requests.list();
    expect(entry).toMatchObject({ accept: "application/vnd.service+json", apiVersion: "2026-03-10", tokenName: "admin" });
    expect(entry?.userAgent).toMatch(/^my-tool\/2\.0 shiplog-client\//);
  });

  it("selects the older API version when asked", async () => {
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, apiVersion: "2022-11-28" });
    const response = await client.request({
      method: "GET",
      route: "/orgs/{org}/artifacts/{subject_digest}/metadata/storage-records",
      params: { org: "acme", subject_digest: digest },
    });
    expect(response.headers.get("x-service-api-version-selected")).toBe("2022-11-28");
  });

  it("refuses an unsupported API version locally, and the emulator answers 400 listing the supported ones", async () => {
    expect(() => new ShiplogClient({ apiVersion: "2019-01-01" as never })).toThrow(/apiVersion.*one of 2026-03-10, 2022-11-28/s);
    const response = await fetch(`${emulator.url}/orgs/acme/artifacts/${digest}/metadata/storage-records`, {
      headers: { "x-service-api-version": "2019-01-01", authorization: `Bearer ${emulator.tokens.admin}` },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(/2022-11-28, 2026-03-10/);
  });

  it("answers with the documented default version when the header is omitted", async () => {
    const response = await fetch(`${emulator.url}/orgs/acme/artifacts/${digest}/metadata/storage-records`, {
      headers: { authorization: `Bearer ${emulator.tokens.admin}` },
    });
    expect(response.headers.get("x-service-api-version-selected")).toBe("2022-11-28");
  });

  it("retries 503 answers, honouring Retry-After, until one succeeds", async () => {
    emulator.faults.add({ kind: "status", status: 503, retryAfterSeconds: 0, route: STORAGE_ROUTE, times: 2 });
    const retries: number[] = [];
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.admin,
      retry: fastRetry,
      hooks: { onRetry: (i) => retries.push(i.attempt) },
    });
    const result = await client.artifacts.createStorageRecord(storageParams);
    expect(result.storage_records).toHaveLength(1);
    expect(retries).toEqual([1, 2]);
    expect(emulator.requests.list({ route: STORAGE_ROUTE }).map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it("retries a dropped connection", async () => {
    emulator.faults.add({ kind: "drop", route: STORAGE_ROUTE, times: 1 });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: fastRetry });
    await expect(client.artifacts.createStorageRecord(storageParams)).resolves.toMatchObject({ total_count: 1 });
  });

  it("never retries a request that is not safe to repeat", async () => {
    emulator.faults.add({ kind: "status", status: 503, route: STORAGE_ROUTE, times: 1 });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: fastRetry });
    const attempt = client.request({
      method: "POST",
      route: "/orgs/{org}/artifacts/metadata/storage-record",
      params: { org: "acme" },
      body: { name: "x" },
      safeToRetry: false,
    });
    await expect(attempt).rejects.toBeInstanceOf(UnavailableError);
    expect(emulator.requests.count({ route: STORAGE_ROUTE })).toBe(1);
  });

  it("gives up with UnavailableError when 503s outlast the retries", async () => {
    emulator.faults.add({ kind: "status", status: 503, route: STORAGE_ROUTE });
    const client = new ShiplogClient({
      baseUrl: emulator.url,
      token: emulator.tokens.admin,
      retry: { retries: 2, minDelayMs: 1, maxDelayMs: 2 },
    });
    const error = await client.artifacts.createStorageRecord(storageParams).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ code: "service_unavailable", status: 503 });
    expect(emulator.requests.count({ route: STORAGE_ROUTE })).toBe(3);
  });

  it("waits out a secondary rate limit that asks for a short Retry-After", async () => {
    emulator.faults.add({ kind: "rate_limit", retryAfterSeconds: 0, route: STORAGE_ROUTE, times: 1 });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: fastRetry });
    await expect(client.artifacts.createStorageRecord(storageParams)).resolves.toMatchObject({ total_count: 1 });
  });

  it("does not wait for a rate limit that resets too far away, and says when it resets", async () => {
    emulator.faults.add({ kind: "rate_limit", retryAfterSeconds: 3600, route: STORAGE_ROUTE, times: 1 });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: fastRetry });
    const error = await client.artifacts.createStorageRecord(storageParams).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: "rate_limited", retryAfterSeconds: 3600 });
  });

  it("times out a request that gets no answer in time, on the client's clock", async () => {
    // A service that holds the request; an hour passes on the injected clock only (real timers would never fire).
    const arrived = signal();
    const service = await serve(() => arrived.resolve());
    const clock = new VirtualClock();
    const client = new ShiplogClient({ baseUrl: service, token: "secret-token-value", timeoutMs: 3_600_000, retry: false, clock });
    const pending = client.artifacts.createStorageRecord(storageParams).catch((e: unknown) => e);
    await arrived.promise;
    await clock.advance(3_600_000);
    const error = await pending;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ code: "timeout" });
  });

  it("stops when the caller aborts, without retrying", async () => {
    // A service that holds the request: the caller aborts once the request has arrived, so mid-request.
    const arrived = signal();
    let requests = 0;
    const service = await serve(() => {
      requests++;
      arrived.resolve();
    });
    const client = new ShiplogClient({ baseUrl: service, token: "secret-token-value", retry: fastRetry });
    const controller = new AbortController();
    const pending = client.artifacts.createStorageRecord(storageParams, { signal: controller.signal });
    await arrived.promise;
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(error).toMatchObject({ code: "aborted" });
    expect(requests).toBe(1);
  });

  it("reports a refused connection as a network error", async () => {
    const port = await freePort();
    const client = new ShiplogClient({
      baseUrl: `http://127.0.0.1:${port}`,
      token: "secret-token-value",
      retry: { retries: 1, minDelayMs: 1, maxDelayMs: 1 },
    });
    const error = await client.artifacts.createStorageRecord(storageParams).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
  });

  it("maps an unknown error status to UnexpectedStatusError", async () => {
    emulator.faults.add({ kind: "status", status: 418, message: "I'm a teapot", route: STORAGE_ROUTE, times: 1 });
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin, retry: false });
    await expect(client.artifacts.createStorageRecord(storageParams)).rejects.toBeInstanceOf(UnexpectedStatusError);
  });

  it("sends rate-limit headers on every answer, which the client exposes", async () => {
    const client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.readOnly });
    const response = await client.request({
      method: "GET",
      route: "/orgs/{org}/artifacts/{subject_digest}/metadata/storage-records",
      params: { org: "acme", subject_digest: digest },
    });
    expect(Number(response.headers.get("x-ratelimit-limit"))).toBeGreaterThan(0);
    expect(response.headers.get("x-ratelimit-remaining")).not.toBeNull();
    expect(response.headers.get("x-ratelimit-reset")).not.toBeNull();
  });
});
