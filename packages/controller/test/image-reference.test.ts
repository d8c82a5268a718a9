import { describe, expect, it } from "vitest";
import { digestFromImageId, parseImageReference, runningDigest } from "@shiplog/controller/internal";

const HEX = "0123456789abcdef".repeat(4);

describe("parseImageReference", () => {
  it.each([
    ["nginx", { name: "docker.io/library/nginx" }],
    ["nginx:1.25", { name: "docker.io/library/nginx", tag: "1.25" }],
    ["docker.io/nginx:1.25", { name: "docker.io/library/nginx", tag: "1.25" }],
    ["index.docker.io/library/nginx", { name: "docker.io/library/nginx" }],
    ["bitnami/redis:7.2", { name: "docker.io/bitnami/redis", tag: "7.2" }],
    ["ghcr.io/acme/web:v2.1.0", { name: "ghcr.io/acme/web", tag: "v2.1.0" }],
    ["localhost:5000/team/app:dev", { name: "localhost:5000/team/app", tag: "dev" }],
    ["localhost/app", { name: "localhost/app" }],
    ["registry.example.com:8443/a/b/c:1", { name: "registry.example.com:8443/a/b/c", tag: "1" }],
    [`ghcr.io/acme/web@sha256:${HEX}`, { name: "ghcr.io/acme/web", digest: `sha256:${HEX}` }],
    [`nginx:1.25@sha256:${HEX}`, { name: "docker.io/library/nginx", tag: "1.25", digest: `sha256:${HEX}` }],
  ])("%s", (input, expected) => {
    expect(parseImageReference(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["", "empty"],
    ["Nginx", "invalid repository component"],
    ["nginx:", "invalid tag"],
    ["nginx@sha256", "malformed digest"],
    ["ghcr.io/", "no repository"],
    ["a//b", "invalid repository component"],
  ])("refuses %j (%s)", (input, reason) => {
    const result = parseImageReference(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });
});

describe("digestFromImageId", () => {
  it.each([[`docker.io/library/nginx@sha256:${HEX}`], [`docker-pullable://nginx@sha256:${HEX}`]])(
    "takes the sha256 digest from %s",
    (imageId) => {
      expect(digestFromImageId(imageId)).toEqual({ ok: true, value: `sha256:${HEX}` });
    },
  );

  it.each([[`sha256:${HEX}`], [`docker://sha256:${HEX}`]])(
    "refuses the bare image config ID %s: it is not a registry manifest digest",
    (imageId) => {
      expect(digestFromImageId(imageId)).toEqual({
        ok: false,
        reason: `image ID "${imageId}" is the image's local config ID, not a registry manifest digest (no repository@sha256:…)`,
      });
    },
  );

  it("runningDigest: a bare config ID in imageID, with the status image pinned by digest, takes the image's digest", () => {
    const OTHER = "b".repeat(64);
    expect(runningDigest({ image: `quay.io/acme/web@sha256:${OTHER}`, imageID: `sha256:${HEX}` })).toEqual({
      ok: true,
      value: `sha256:${OTHER}`,
    });
    expect(runningDigest({ image: "quay.io/acme/web:1.0", imageID: `quay.io/acme/web@sha256:${HEX}` })).toEqual({
      ok: true,
      value: `sha256:${HEX}`,
    });
    // Neither carries a repository digest (a locally built image): skipped with the reason.
    const local = runningDigest({ image: "web:dev", imageID: `docker://sha256:${HEX}` });
    expect(local).toMatchObject({ ok: false });
    if (!local.ok) expect(local.reason).toContain("not a registry manifest digest");
    expect(runningDigest({ image: `sha256:${OTHER}`, imageID: `sha256:${HEX}` })).toMatchObject({ ok: false });
    expect(runningDigest({ image: "web:dev" })).toEqual({ ok: false, reason: "container has no image ID yet" });
  });

  it("skips a missing image ID with a reason", () => {
    expect(digestFromImageId(undefined)).toEqual({ ok: false, reason: "container has no image ID yet" });
    expect(digestFromImageId("")).toMatchObject({ ok: false });
  });

  it("refuses other algorithms, short and uppercase digests", () => {
    const sha512 = digestFromImageId(`repo@sha512:${"a".repeat(128)}`);
    expect(sha512).toMatchObject({ ok: false });
    if (!sha512.ok) expect(sha512.reason).toContain('"sha512"');
    expect(digestFromImageId("sha256:abc")).toMatchObject({ ok: false });
    expect(digestFromImageId(`sha256:${HEX.toUpperCase()}`)).toMatchObject({ ok: false });
    expect(digestFromImageId("nginx:latest")).toMatchObject({ ok: false });
  });
});
