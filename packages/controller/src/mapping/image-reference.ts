// Container image references: the fully-qualified artifact name, the version from the tag, and the digest a
// container really runs (from its status imageID). Follows the Docker reference grammar and its normalisation,
// so `nginx`, `docker.io/nginx` and `index.docker.io/library/nginx` are all `docker.io/library/nginx`.

/** A parsed image reference. */
export interface ImageReference {
  /** Fully qualified repository name, e.g. `docker.io/library/nginx`. */
  name: string;
  tag?: string;
  digest?: string;
}

/** A result that is either a value or the reason there is none. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$|^\[[0-9a-fA-F:]+\](?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const ANY_DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
/** The only digest form the service accepts. */
export const SHA256_DIGEST = /^sha256:[a-f0-9]{64}$/;

/** Parses and normalises an image reference (`nginx:1.25`, `ghcr.io/acme/web@sha256:…`). */
export function parseImageReference(reference: string): Parsed<ImageReference> {
  const input = reference.trim();
  if (input === "") return { ok: false, reason: "image reference is empty" };
  let rest = input;
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!ANY_DIGEST.test(digest)) return { ok: false, reason: `image reference "${input}" has a malformed digest` };
  }
  let tag: string | undefined;
  const lastSlash = rest.lastIndexOf("/");
  const colon = rest.indexOf(":", lastSlash + 1);
  if (colon >= 0) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return { ok: false, reason: `image reference "${input}" has an invalid tag "${tag}"` };
  }
  let domain = "docker.io";
  let path = rest;
  const firstSlash = rest.indexOf("/");
  if (firstSlash >= 0) {
    const first = rest.slice(0, firstSlash);
    if (/[.:]/.test(first) || first === "localhost" || first !== first.toLowerCase()) {
      domain = first;
      path = rest.slice(firstSlash + 1);
    }
  }
  if (!DOMAIN.test(domain)) return { ok: false, reason: `image reference "${input}" has an invalid registry "${domain}"` };
  if (domain === "index.docker.io" || domain === "registry-1.docker.io") domain = "docker.io";
  if (path === "") return { ok: false, reason: `image reference "${input}" has no repository` };
  for (const component of path.split("/")) {
    if (!PATH_COMPONENT.test(component)) {
      return { ok: false, reason: `image reference "${input}" has an invalid repository component "${component}"` };
    }
  }
  if (domain === "docker.io" && !path.includes("/")) path = `library/${path}`;
  // One flat string (join): the name is kept with every record, a concatenation would keep its pieces too.
  const value: ImageReference = { name: [domain, path].join("/") };
  if (tag !== undefined) value.tag = tag;
  if (digest !== undefined) value.digest = digest;
  return { ok: true, value };
}

/**
 * The registry manifest digest a container runs, from its status `imageID`: `docker.io/library/nginx@sha256:…` or
 * `docker-pullable://nginx@sha256:…`. A bare `sha256:…` (`docker://sha256:…` for a local image, some CRI-O setups)
 * is the image's config ID, not a manifest digest: it names nothing in a registry, so it is refused with a reason
 * (see `runningDigest`, which then looks at the status image). Anything but a sha256 digest is refused too.
 */
export function digestFromImageId(imageId: string | undefined): Parsed<`sha256:${string}`> {
  if (imageId === undefined || imageId === "") return { ok: false, reason: "container has no image ID yet" };
  let value = imageId.trim();
  const scheme = value.indexOf("://");
  if (scheme >= 0) value = value.slice(scheme + 3);
  const at = value.lastIndexOf("@");
  const repository = at >= 0;
  if (repository) value = value.slice(at + 1);
  if (SHA256_DIGEST.test(value)) {
    if (!repository) {
      return {
        ok: false,
        reason: `image ID "${imageId}" is the image's local config ID, not a registry manifest digest (no repository@sha256:…)`,
      };
    }
    return { ok: true, value: value as `sha256:${string}` };
  }
  const algorithm = /^([a-zA-Z0-9+._-]+):/.exec(value)?.[1];
  if (algorithm && algorithm.toLowerCase() !== "sha256") {
    return { ok: false, reason: `image ID "${imageId}" uses digest algorithm "${algorithm}"; only sha256 is accepted` };
  }
  return { ok: false, reason: `image ID "${imageId}" is not a sha256 digest (sha256: and 64 lowercase hex digits)` };
}

/**
 * The manifest digest a container runs, from its status: the `imageID` when it names a repository digest, else the
 * status `image` when that is pinned by digest (`repo@sha256:…`, as some runtimes report it beside a bare config
 * ID). Neither: refused with the reason from the image ID.
 */
export function runningDigest(status: { image?: string; imageID?: string }): Parsed<`sha256:${string}`> {
  const fromId = digestFromImageId(status.imageID);
  if (fromId.ok || status.imageID === undefined || status.imageID === "") return fromId;
  const image = status.image?.trim() ?? "";
  const at = image.lastIndexOf("@");
  if (at > 0 && !/^sha256:/.test(image)) {
    const digest = image.slice(at + 1);
    if (SHA256_DIGEST.test(digest)) return { ok: true, value: digest as `sha256:${string}` };
  }
  return fromId;
}
