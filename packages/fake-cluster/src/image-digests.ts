import { sha256Hex } from "./name-generator.js";

/** An image reference split the way container runtimes normalise it. */
export interface ImageReference {
  /** e.g. "docker.io/library/nginx" */
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
  /** Normalised reference: repository:tag (default tag "latest") or repository@digest. */
  normalized: string;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** Normalises an image reference: "nginx:1.25" -> docker.io/library/nginx, tag 1.25. */
export function parseImage(image: string): ImageReference {
  let rest = image.trim();
  let digest: string | undefined;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
  }
  const first = rest.split("/")[0]!;
  const hasRegistry = rest.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  let repository = hasRegistry ? rest : `docker.io/${rest}`;
  if (!hasRegistry && !rest.includes("/")) repository = `docker.io/library/${rest}`;
  if (!tag && !digest) tag = "latest";
  const normalized = digest ? `${repository}@${digest}` : `${repository}:${tag}`;
  return { repository, tag, digest, normalized };
}

/** The digest a fresh cluster reports for `image`: sha256 of its normalised reference (or the pinned digest). */
export function defaultImageDigest(image: string): string {
  const ref = parseImage(image);
  if (ref.digest && DIGEST.test(ref.digest)) return ref.digest;
  return `sha256:${sha256Hex(ref.normalized)}`;
}

/** Image digests the simulated registry serves; overridable per image (e.g. a tag moved to a new build). */
export class ImageRegistry {
  private readonly overrides = new Map<string, string>();

  /** Digest pulled for `image` now. */
  digestFor(image: string): string {
    return this.overrides.get(parseImage(image).normalized) ?? defaultImageDigest(image);
  }

  /** imageID as a kubelet reports it: "docker.io/library/nginx@sha256:<64 hex>". */
  imageIdFor(image: string): string {
    return `${parseImage(image).repository}@${this.digestFor(image)}`;
  }

  /** Makes future pulls of `image` report `digest` ("sha256:<64 lowercase hex>"). */
  setDigest(image: string, digest: string): void {
    if (!DIGEST.test(digest)) throw new TypeError(`digest: must be "sha256:" followed by 64 lowercase hex characters, got "${digest}"`);
    this.overrides.set(parseImage(image).normalized, digest);
  }
}
