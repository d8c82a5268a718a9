// Finds and reads the kubeconfig as controller-runtime does (the files of --kubeconfig / KUBECONFIG, else in-cluster,
// else ~/.kube/config), refusing at start what would otherwise fail every call, forever: a missing or unreadable
// file, a file that is not a kubeconfig, and no configuration at all (client-node would fall back to
// http://localhost:8080).
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { BoundedFileError, contentAsPathError, readBoundedFile } from "@shiplog/client/internal";
import { StartupError } from "../config/startup-error.js";

const SETTING = "--kubeconfig / KUBECONFIG";

/** Most bytes a kubeconfig may hold (certificates embedded for many clusters stay far below). */
export const MAX_KUBECONFIG_BYTES = 4 * 1024 * 1024;
/** Most bytes of a certificate or key file a kubeconfig names. */
export const MAX_REFERENCED_FILE_BYTES = 1024 * 1024;

/** A bounded-file refusal as the kubeconfig's start-up error (the rule and the detail kept). */
const unusable = (error: BoundedFileError) => new StartupError("kubeconfig_unusable", SETTING, error.rule, error.detail);

/** Where a kubeconfig may come from; injectable for tests. */
export interface KubeConfigSources {
  /** `--kubeconfig` or `KUBECONFIG`: one path, or several joined by the path delimiter. */
  paths?: string;
  home?: string;
  /** Whether the process runs in a pod (KUBERNETES_SERVICE_HOST set). */
  inCluster?: boolean;
}

/** Loads the kubeconfig, or throws a StartupError (`kubeconfig_unusable`) that names the setting and the file. */
export function loadKubeConfig(sources: KubeConfigSources = {}): KubeConfig {
  const kubeConfig = new KubeConfig();
  // A kubeconfig pasted into KUBECONFIG would be split at its colons and each piece named as a file: refused whole.
  const pasted = sources.paths && contentAsPathError(sources.paths, { setting: SETTING, holds: "a kubeconfig" });
  if (pasted) throw unusable(pasted);
  const files = (sources.paths ?? "").split(delimiter).filter((file) => file !== "");
  if (files.length > 0) {
    files.forEach((file, index) => {
      const part = index === 0 ? kubeConfig : new KubeConfig();
      readFile(part, file);
      if (part !== kubeConfig) kubeConfig.mergeConfig(part);
    });
  } else {
    const home = sources.home ?? homedir();
    const inCluster = sources.inCluster ?? Boolean(process.env.KUBERNETES_SERVICE_HOST);
    const defaultFile = home ? join(home, ".kube", "config") : undefined;
    if (inCluster) kubeConfig.loadFromCluster();
    else if (defaultFile && existsSync(defaultFile)) readFile(kubeConfig, defaultFile);
    else {
      throw new StartupError(
        "kubeconfig_unusable",
        SETTING,
        "a cluster to watch",
        `not set, ${defaultFile ?? "~/.kube/config"} does not exist and this is not a pod (KUBERNETES_SERVICE_HOST unset)`,
      );
    }
  }
  const cluster = kubeConfig.getCurrentCluster();
  const source = files.join(delimiter) || "the kubeconfig";
  if (!cluster)
    throw new StartupError(
      "kubeconfig_unusable",
      SETTING,
      "current context with a cluster",
      `${source} names no current context with a cluster`,
    );
  if (!/^https?:\/\/[^\s/]/i.test(cluster.server) || !URL.canParse(cluster.server)) {
    throw new StartupError(
      "kubeconfig_unusable",
      SETTING,
      "cluster server URL",
      `the server of cluster ${cluster.name} in ${source} is not an http(s) URL`,
    );
  }
  // Files the kubeconfig refers to are read at the first request: a missing one would fail every call, forever.
  const user = kubeConfig.getCurrentUser();
  const referenced = [
    ["certificate-authority", cluster.caFile],
    ["client-certificate", user?.certFile],
    ["client-key", user?.keyFile],
  ] as const;
  for (const [field, file] of referenced) {
    if (file === undefined || file === "") continue;
    try {
      readBoundedFile(file, { setting: SETTING, holds: `the ${field}`, maxBytes: MAX_REFERENCED_FILE_BYTES });
    } catch (error) {
      if (!(error instanceof BoundedFileError)) throw error;
      throw new StartupError("kubeconfig_unusable", SETTING, "readable referenced files", `${field} of ${source}: ${error.detail}`);
    }
  }
  return kubeConfig;
}

function readFile(kubeConfig: KubeConfig, file: string): void {
  let text: string;
  try {
    // A regular file of bounded size: a FIFO is not waited on, /dev/zero not read; an empty file is named as such.
    text = readBoundedFile(file, { setting: SETTING, holds: "a kubeconfig", maxBytes: MAX_KUBECONFIG_BYTES });
  } catch (error) {
    if (error instanceof BoundedFileError) throw unusable(error);
    throw error;
  }
  try {
    // What loadFromFile does, on the text read here: relative certificate paths are relative to the file.
    kubeConfig.loadFromString(text);
    kubeConfig.makePathsAbsolute(dirname(file));
  } catch (error) {
    // YAML that is only comments parses to nothing, which client-node then reads properties of.
    if (error instanceof TypeError) {
      throw new StartupError(
        "kubeconfig_unusable",
        SETTING,
        "readable kubeconfig file",
        `${file} holds no kubeconfig (only comments or blank lines)`,
      );
    }
    const failure = error as { code?: string; reason?: string; mark?: { line?: number }; message?: string };
    // A YAML error's message quotes the file's lines, which may hold a token: only the reason and the line are shown.
    const detail = failure.code
      ? `cannot read ${file} (${failure.code})`
      : failure.reason
        ? `${file} is not valid YAML: ${failure.reason} at line ${(failure.mark?.line ?? 0) + 1}`
        : `${file} is not a valid kubeconfig: ${(failure.message ?? "").split("\n")[0]}`;
    throw new StartupError("kubeconfig_unusable", SETTING, "readable kubeconfig file", detail);
  }
}
