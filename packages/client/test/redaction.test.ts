// A server or proxy that echoes the Authorization header: the token leaves in no part of the error (message, stack,
// JSON, inspect), nor does anything shaped like a token the client holds. Real loopback servers, real HTTP.
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { ServiceError, ShiplogClient, redactSecrets } from "@shiplog/client";
import { closeLoopbackServers, serve } from "../../../test/kit/loopback.js";

afterEach(closeLoopbackServers);

const TOKEN = "ghs_EchoedToken0123456789abcdefABCDEF012";
/** Another token of the same kind (an earlier one, say) that the server also shows. */
const OLDER = "ghs_OlderTokenZYXWVUT9876543210zyxwvu999";

/** Every way an error is shown. */
function shown(error: unknown): string {
  const e = error as Error;
  return [
    e.message,
    e.stack,
    JSON.stringify(e),
    inspect(e, { depth: 10 }),
    String(e),
    inspect((e as ServiceError).body, { depth: 10 }),
  ].join("\n");
}

async function errorFrom(handler: Parameters<typeof serve>[0]): Promise<ServiceError> {
  const url = await serve(handler);
  const client = new ShiplogClient({ baseUrl: url, token: TOKEN, retry: false });
  const error = await client.artifacts.listDeploymentRecords({ org: "acme", subject_digest: `sha256:${"a".repeat(64)}` }).then(
    () => expect.unreachable(),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

describe("server text in errors is redacted", () => {
  it("a JSON error body echoing the Authorization header (message, nested fields, request id)", async () => {
    const error = await errorFrom((req, res) => {
      res.writeHead(401, { "content-type": "application/json", "x-service-request-id": `id-${req.headers.authorization}` });
      res.end(
        JSON.stringify({
          message: `Bad credentials: got ${req.headers.authorization} (also tried ${OLDER})`,
          documentation_url: "https://docs.service.example/auth",
          debug: { headers: { authorization: req.headers.authorization }, encoded: encodeURIComponent(TOKEN), list: [TOKEN] },
        }),
      );
    });
    expect(error.code).toBe("authentication_required");
    const text = shown(error);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(OLDER);
    expect(text).not.toContain(TOKEN.slice(4, 20));
    expect(error.serviceMessage).toBe("Bad credentials: got Bearer [redacted] (also tried [redacted])");
    expect(error.message).toContain("answered 401: Bad credentials: got Bearer [redacted]");
    expect(error.requestId).toBe("id-Bearer [redacted]");
  });

  it("a proxy's HTML page dumping the request headers, with the token near the 200-character cut of the message", async () => {
    const error = await errorFrom((req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      const padding = "x".repeat(150);
      res.end(
        `<html><body><h1>502 Bad Gateway</h1><!-- ${padding} --><pre>Authorization: ${req.headers.authorization}\nHost: ${req.headers.host}</pre></body></html>`,
      );
    });
    expect(error.status).toBe(502);
    const text = shown(error);
    expect(text).not.toContain(TOKEN);
    // Not even the start of it, where the message was cut.
    expect(text).not.toContain(TOKEN.slice(0, 12));
    expect(text).toContain("502 Bad Gateway");
  });

  it("redactSecrets: the token's encodings and shapes, Bearer and Basic values; ordinary text untouched", () => {
    const text = [
      TOKEN,
      encodeURIComponent(TOKEN),
      Buffer.from(TOKEN).toString("base64"),
      `Authorization: Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}`,
      `authorization=bearer%20${TOKEN}`,
      `a ghs_ token of 20 chars: ghs_abcdefghij0123456789`,
      `sha256:${"a".repeat(64)}`,
      "the token expired; token refresh failed",
    ].join("\n");
    const out = redactSecrets(text, [TOKEN]);
    expect(out).not.toMatch(/EchoedToken|ghs_abcdefghij/);
    expect(out).not.toContain(Buffer.from(TOKEN).toString("base64").slice(0, 20));
    expect(out).toContain("Authorization: Basic [redacted]");
    expect(out).toContain(`sha256:${"a".repeat(64)}`);
    expect(out).toContain("the token expired; token refresh failed");
    // Nothing held, nothing shaped: only Authorization values go.
    expect(redactSecrets("Bearer abcdefghijkl and ghs_abcdefghij0123456789", [undefined])).toBe(
      "Bearer [redacted] and ghs_abcdefghij0123456789",
    );
  });
});
