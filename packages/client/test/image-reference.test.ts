// The one image-reference grammar of shiplog (the controller's, the action's and the chart's): an image-name prefix
// as the parser reads it, and the same grammar as one pattern (what the chart's schema checks) taking exactly the
// same prefixes, over every combination of first components, path components and endings below.
import { describe, expect, it } from "vitest";
import { IMAGE_NAME_PREFIX_PATTERN, namesRegistryHost, parseImageNamePrefix, parseImageReference } from "@shiplog/client/internal";

describe("parseImageNamePrefix", () => {
  it.each([
    ["nginx", "docker.io/library/nginx"],
    ["library/nginx", "docker.io/library/nginx"],
    ["registry.example.com/team-a/", "registry.example.com/team-a"],
    ["Registry.Example.com", "registry.example.com"],
    ["localhost:5000", "localhost:5000"],
    ["index.docker.io/acme/web", "docker.io/acme/web"],
    ["[::1]:5000/app", "[::1]:5000/app"],
  ])("%s is %s", (text, prefix) => {
    expect(parseImageNamePrefix(text)).toEqual({ ok: true, value: prefix });
  });

  it.each(["nginx:1.25", "team-a:5000", "ghcr.io/acme/web@sha256:aa", "ghcr.io/Acme", "-a.b", "a..b", "a//b", ""])(
    "refuses %j, naming it",
    (text) => {
      expect(parseImageNamePrefix(text)).toEqual({
        ok: false,
        reason: `"${text}" is not an image name prefix (a registry and path, no tag or digest)`,
      });
    },
  );
});

describe("IMAGE_NAME_PREFIX_PATTERN", () => {
  const pattern = new RegExp(IMAGE_NAME_PREFIX_PATTERN);
  const firsts = ["nginx", "a_b", "a.b_c", "my.app", "A", "Abc", "-x", "x-", "localhost", "LOCALHOST", "localhost:5000"];
  firsts.push("ghcr.io", "Ghcr.IO:443", "team-a:5000", "[::1]", "[::1]:5000", "a..b", "1.2.3.4:80", "a b", "");
  const rests = ["", "/acme", "/acme/web", "/Acme", "/a__b/c--d", "/a.b", "/_x", "/web:1.0", "/web@sha256:aa", "//x"];
  const ends = ["", "/", "//"];
  const cases = firsts.flatMap((first) => rests.flatMap((rest) => ends.map((end) => `${first}${rest}${end}`)));

  it(`takes a prefix exactly when parseImageNamePrefix does (${cases.length} cases)`, () => {
    const disagree = cases.filter((text) => pattern.test(text) !== parseImageNamePrefix(text).ok);
    expect(disagree).toEqual([]);
    // Both answers occur: the comparison is not vacuous.
    expect(cases.filter((text) => pattern.test(text)).length).toBeGreaterThan(100);
    expect(cases.filter((text) => !pattern.test(text)).length).toBeGreaterThan(100);
  });
});

describe("namesRegistryHost", () => {
  it("a first component with a dot or a port, or localhost, is a registry written out", () => {
    for (const name of ["ghcr.io/acme/web", "localhost:5000/web", "localhost/web", "myregistry:5000/web"])
      expect(namesRegistryHost(name), name).toBe(true);
    for (const name of ["web", "acme/web", "my-app.tgz", "/web", "Acme/web"]) expect(namesRegistryHost(name), name).toBe(false);
  });
});

describe("parseImageReference refusals", () => {
  it.each([
    ["", "reference"],
    ["nginx@sha256", "digest"],
    ["nginx:", "tag"],
    ["ghcr..io/web", "registry"],
    ["Nginx", "repository"],
    ["ghcr.io/", "repository"],
  ] as const)("%j: the part refused is %s", (text, part) => {
    expect(parseImageReference(text)).toMatchObject({ ok: false, part });
  });
});
