// The one grammar of container image references for every shiplog program: Docker's reference grammar and its
// normalisation (`nginx`, `docker.io/nginx` and `index.docker.io/library/nginx` are all `docker.io/library/nginx`).
// The controller reads what a container runs with it and the image-name prefixes of --image-repositories, the action
// the registry and repository of an image subject, and the chart's schema checks an image-name prefix with the same
// grammar written as one pattern (IMAGE_NAME_PREFIX_PATTERN).

/** One DNS label of a registry host. */
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?";
const PORT = "(?::[0-9]+)?";
/** A registry: a host name or a bracketed IPv6 address, with an optional port. */
const DOMAIN = `(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-fA-F:]+\\])${PORT}`;
/** A registry host written alone: a dotted host name, or localhost, with an optional port. */
const REGISTRY_HOST = `(?:${LABEL}(?:\\.${LABEL})+|localhost)${PORT}`;
/** One component of a repository path: lowercase letters and digits joined by `.`, `_`, `__` or dashes. */
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
/** A first component that is read as a path component, not a registry: no dot (a dot would make it a host). */
const UNDOTTED_COMPONENT = "[a-z0-9]+(?:(?:_|__|-+)[a-z0-9]+)*";

const whole = (source: string) => new RegExp(`^(?:${source})$`);
const DOMAIN_RE = whole(DOMAIN);
const REGISTRY_HOST_RE = whole(REGISTRY_HOST);
const PATH_COMPONENT_RE = whole(PATH_COMPONENT);
const TAG_RE = /^[\w][\w.-]{0,127}$/;
const DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;

/**
 * An image-name prefix as a pattern (a JSON schema's, e.g. the chart's config.imageRepositories keys): exactly what
 * `parseImageNamePrefix` takes. A registry host alone; one path component; or a registry (or an undotted first
 * component, which `parseImageReference` reads as a path) and one or more path components; trailing slashes allowed.
 * A first component that is a registry by its dot, port or capitals must then be a valid one.
 */
export const IMAGE_NAME_PREFIX_PATTERN = `^(?:${REGISTRY_HOST}|${PATH_COMPONENT}|(?:${DOMAIN}|${UNDOTTED_COMPONENT})(?:/${PATH_COMPONENT})+)/*$`;

/** A parsed image reference. */
export interface ImageReference {
  /** Fully qualified repository name, e.g. `docker.io/library/nginx`. */
  name: string;
  tag?: string;
  digest?: string;
}

/** Which part of a reference a refusal is about. */
export type ImageReferencePart = "reference" | "digest" | "tag" | "registry" | "repository";

/** A parsed reference, or why the text is none (`reason` quotes the input and names the part). */
export type ImageReferenceResult = { ok: true; value: ImageReference } | { ok: false; reason: string; part: ImageReferencePart };

/**
 * Whether a name starts with a registry host written out (`ghcr.io/acme/web`, `localhost:5000/web`): a first
 * component with a dot or a port, or localhost. `acme/web` and `nginx` leave the registry implied (Docker Hub).
 */
export function namesRegistryHost(name: string): boolean {
  const slash = name.indexOf("/");
  if (slash <= 0) return false;
  const first = name.slice(0, slash);
  return /[.:]/.test(first) || first === "localhost";
}

/** Parses and normalises an image reference (`nginx:1.25`, `ghcr.io/acme/web@sha256:…`). */
export function parseImageReference(reference: string): ImageReferenceResult {
  const input = reference.trim();
  const refuse = (part: ImageReferencePart, what: string): ImageReferenceResult => ({
    ok: false,
    reason: `image reference "${input}" ${what}`,
    part,
  });
  if (input === "") return { ok: false, reason: "image reference is empty", part: "reference" };
  let rest = input;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST_RE.test(digest)) return refuse("digest", "has a malformed digest");
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.indexOf(":", lastSlash + 1);
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG_RE.test(tag)) return refuse("tag", `has an invalid tag "${tag}"`);
  }
  let domain = "docker.io";
  let path = rest;
  const firstSlash = rest.indexOf("/");
  if (firstSlash >= 0) {
    const first = rest.slice(0, firstSlash);
    // Capitals are never part of a repository path, so a first component with them can only be a registry.
    if (namesRegistryHost(rest) || first !== first.toLowerCase()) {
      domain = first;
      path = rest.slice(firstSlash + 1);
    }
  }
  if (!DOMAIN_RE.test(domain)) return refuse("registry", `has an invalid registry "${domain}"`);
  if (domain === "index.docker.io" || domain === "registry-1.docker.io") domain = "docker.io";
  if (path === "") return refuse("repository", "has no repository");
  for (const component of path.split("/")) {
    if (!PATH_COMPONENT_RE.test(component)) return refuse("repository", `has an invalid repository component "${component}"`);
  }
  if (domain === "docker.io" && !path.includes("/")) path = `library/${path}`;
  // One flat string (join): the name is kept with every record, a concatenation would keep its pieces too.
  const value: ImageReference = { name: [domain, path].join("/") };
  if (tag !== undefined) value.tag = tag;
  if (digest !== undefined) value.digest = digest;
  return { ok: true, value };
}

/**
 * An image-name prefix (`registry.example.com/team-a`, `nginx`, a registry host alone such as `localhost:5000`),
 * normalised as an image name is (`nginx` is `docker.io/library/nginx`; a host alone is lowercased); trailing
 * slashes are dropped. Refused: a tag, a digest, or what is no image name.
 */
export function parseImageNamePrefix(text: string): { ok: true; value: string } | { ok: false; reason: string } {
  const prefix = text.trim().replace(/\/+$/, "");
  if (REGISTRY_HOST_RE.test(prefix)) return { ok: true, value: prefix.toLowerCase() };
  const parsed = parseImageReference(prefix);
  if (!parsed.ok || parsed.value.tag !== undefined || parsed.value.digest !== undefined) {
    return { ok: false, reason: `"${prefix}" is not an image name prefix (a registry and path, no tag or digest)` };
  }
  return { ok: true, value: parsed.value.name };
}
