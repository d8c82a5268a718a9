// A container image as the subject of a storage record: `subject-name` is the fully qualified image name
// (`ghcr.io/acme/web`, no tag, as actions/attest takes it) and `subject-digest` its manifest digest. The registry
// and the repository within it follow from the name, so the common case after a push needs no registry-url.
import { namesRegistryHost, parseImageReference } from "@shiplog/client/internal";

/** Where an image lives, from its name; undefined when the name has no registry host (not an image reference). */
export interface ImageLocation {
  registryUrl: string;
  repository: string;
}

/**
 * The registry and repository of a fully qualified image name (its registry host written out: a dot, a port or
 * localhost), undefined for a name that is not one, or a refusal when it carries a tag or digest or breaks the image
 * reference grammar (@shiplog/client's, the controller's too).
 */
export function imageLocation(name: string): ImageLocation | { problem: string } | undefined {
  if (!namesRegistryHost(name)) return undefined;
  if (name.includes("@")) return { problem: "give the image name without @digest (ghcr.io/acme/web); the digest goes in subject-digest" };
  const parsed = parseImageReference(name);
  if (parsed.ok ? parsed.value.tag !== undefined : parsed.part === "tag") {
    return { problem: "give the image name without :tag (ghcr.io/acme/web); the version goes in subject-version" };
  }
  const slash = name.indexOf("/");
  const path = name.slice(slash + 1);
  if (!parsed.ok && parsed.part === "repository") {
    return { problem: `image repository ${JSON.stringify(path)} must be lowercase path components separated by /` };
  }
  if (!parsed.ok) return { problem: parsed.reason };
  // The registry and repository as written: the record names the image as the user pushed it.
  return { registryUrl: `https://${name.slice(0, slash)}`, repository: path };
}
