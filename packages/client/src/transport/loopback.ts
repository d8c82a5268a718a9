// The one loopback rule of shiplog: where plain http never leaves the machine, and what is never proxied.
// Used by the client's engine (proxy bypass), the action and the controller (http allowed only for loopback).
import { isIPv4 } from "node:net";

/**
 * Whether a host name (as `URL#hostname` gives it, IPv6 with or without brackets) is this machine: `localhost`,
 * 127.0.0.0/8, `::1` and IPv4-mapped 127.0.0.0/8. `*.localhost` is not: resolvers outside browsers (glibc, which
 * Node uses) send such names to DNS, which may answer with any address.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1")
    .replace(/\.$/, "");
  if (host === "localhost" || host === "::1" || host === "0:0:0:0:0:0:0:1") return true;
  if (isIPv4(host)) return host.startsWith("127.");
  // IPv4-mapped IPv6, as URL normalises it: ::ffff:7f00:1 is 127.0.0.1.
  return /^::ffff:(7f[0-9a-f]{2}:[0-9a-f]{1,4}|127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/.test(host);
}

/** A rule a service base URL breaks, for the caller to report under its own setting's name. */
export interface ServiceUrlProblem {
  rule: string;
  message: string;
}

/**
 * Checks a URL the token will be sent to: an absolute http(s) URL without credentials (`user:password@` would be
 * logged and sent along), without a query or fragment (request paths are appended to it), and https unless the host
 * is loopback (over http the token travels in clear text).
 * Messages never quote the URL, which may hold a secret; they name the host only.
 */
export function serviceUrlProblem(text: string): ServiceUrlProblem | undefined {
  const url = /^https?:\/\/[^\s/?#]/i.test(text) && URL.canParse(text) ? new URL(text) : undefined;
  if (!url) return { rule: "absolute http(s) URL", message: "must be an absolute http:// or https:// URL" };
  if (/[?#]/.test(text)) {
    // Paths are appended to the base URL: a query or fragment would end up in the middle of every request's URL.
    return { rule: "no query or fragment", message: "must not have a query (?...) or a fragment (#...): give the API's base URL only" };
  }
  if (url.username !== "" || url.password !== "") {
    return {
      rule: "no credentials in the URL",
      message: "must not contain credentials (user:password@); the token is given on its own and a URL is logged",
    };
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    return {
      rule: "https unless loopback",
      message:
        "must use https:// (over http:// the token would travel in clear text); http:// is allowed only for " +
        `a loopback host (localhost, 127.0.0.0/8, ::1), not ${url.hostname}`,
    };
  }
  return undefined;
}
