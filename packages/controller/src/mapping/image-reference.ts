// The digest a container really runs, from its status (imageID, image). The reference grammar itself (the fully
// qualified artifact name, the version from the tag; `nginx` is `docker.io/library/nginx`) is @shiplog/client's
// parseImageReference, the one grammar of every shiplog program.
import { SHA256_DIGEST_PATTERN } from "@shiplog/client";

/** A result that is either a value or the reason there is none. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

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
  if (SHA256_DIGEST_PATTERN.test(value)) {
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
    if (SHA256_DIGEST_PATTERN.test(digest)) return { ok: true, value: digest as `sha256:${string}` };
  }
  return fromId;
}
