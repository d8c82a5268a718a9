// The one loopback rule (client engine's proxy bypass, the action's and the controller's http-only-to-loopback).
import { describe, expect, it } from "vitest";
import { isLoopbackHost, serviceUrlProblem } from "@shiplog/client";

describe("isLoopbackHost", () => {
  it("localhost, 127.0.0.0/8, ::1 and IPv4-mapped 127/8, as URL gives host names", () => {
    for (const url of [
      "http://localhost",
      "http://LOCALHOST./",
      "http://127.0.0.1:80",
      "http://127.9.8.7",
      "http://127.1",
      "http://0x7f000001",
      "http://[::1]:9",
      "http://[::ffff:127.0.0.1]",
    ]) {
      expect(isLoopbackHost(new URL(url).hostname), url).toBe(true);
    }
    expect(isLoopbackHost("::1")).toBe(true);
  });

  it("not *.localhost (sent to DNS by Node's resolver), nor look-alikes", () => {
    for (const url of [
      "http://web.localhost",
      "http://localhost.evil.example",
      "http://127.0.0.1.nip.io",
      "http://128.0.0.1",
      "http://10.0.0.1",
      "http://[::2]",
      "http://[::ffff:10.0.0.1]",
      "http://0.0.0.0",
    ]) {
      expect(isLoopbackHost(new URL(url).hostname), url).toBe(false);
    }
  });
});

describe("serviceUrlProblem", () => {
  it("https anywhere, http only to loopback, never credentials, never quoting the URL", () => {
    expect(serviceUrlProblem("https://api.service.example/api/v3")).toBeUndefined();
    expect(serviceUrlProblem("http://127.0.0.1:8080")).toBeUndefined();
    expect(serviceUrlProblem("not a url")?.rule).toBe("absolute http(s) URL");
    expect(serviceUrlProblem("ftp://api.service.example")?.rule).toBe("absolute http(s) URL");
    expect(serviceUrlProblem("http://api.service.example")?.rule).toBe("https unless loopback");
    const credentials = serviceUrlProblem("https://robot:pa55word@api.service.example");
    expect(credentials?.rule).toBe("no credentials in the URL");
    expect(credentials?.message).not.toContain("pa55word");
    expect(serviceUrlProblem("http://token-only@127.0.0.1")?.rule).toBe("no credentials in the URL");
    for (const url of ["https://api.service.example/?per_page=1", "https://api.service.example/api#v3", "https://api.service.example/?"]) {
      expect(serviceUrlProblem(url)?.rule, url).toBe("no query or fragment");
    }
  });
});
