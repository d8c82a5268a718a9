// A container image as the subject of a storage record: `subject-name` is the fully qualified image name
// (`ghcr.io/acme/web`, no tag, as actions/attest takes it) and `subject-digest` its manifest digest. The registry
// and the repository within it follow from the name, so the common case after a push needs no registry-url.

/** Where an image lives, from its name; undefined when the name has no registry host (not an image reference). */
export interface ImageLocation {
  registryUrl: string;
  repository: string;
}

/**
 * The registry and repository of a fully qualified image name, undefined for a name that is not one (its first
 * path component is not a host: no dot, no port, not localhost), or a refusal when it carries a tag or digest.
 */
export function imageLocation(name: string): ImageLocation | { problem: string } | undefined {
  const slash = name.indexOf("/");
  if (slash <= 0) return undefined;
  const host = name.slice(0, slash);
  if (!/[.:]/.test(host) && host !== "localhost") return undefined;
  const path = name.slice(slash + 1);
  if (name.includes("@")) return { problem: "give the image name without @digest (ghcr.io/acme/web); the digest goes in subject-digest" };
  if (path.includes(":")) return { problem: "give the image name without :tag (ghcr.io/acme/web); the version goes in subject-version" };
  if (path === "" || !/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(path)) {
    return { problem: `image repository ${JSON.stringify(path)} must be lowercase path components separated by /` };
  }
  return { registryUrl: `https://${host}`, repository: path };
}
