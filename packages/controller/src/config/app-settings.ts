// The App installation settings: the App's id and private key file (read and checked here, never echoed), and no
// API token beside them.
import { createPrivateKey } from "node:crypto";
import { BoundedFileError, MAX_SECRET_FILE_BYTES, readBoundedFile, shownPath } from "@shiplog/client/internal";
import type { ConfigIssue } from "./values.js";

/**
 * The App settings, when any is given: App id and private key file both needed, and no token beside them. The key
 * is read and checked here, never echoed. Undefined in token mode.
 */
export function readAppSettings(
  raw: Record<string, string>,
  env: Readonly<Record<string, string | undefined>>,
  issues: ConfigIssue[],
  fieldName: (name: "appId" | "appPrivateKeyFile" | "tokenFile") => string,
): { privateKeyFile: string; privateKey: string } | undefined {
  if (raw.appId === undefined && raw.appPrivateKeyFile === undefined && raw.appInstallationId === undefined) return undefined;
  const tokenGiven = raw.tokenFile !== undefined || (env.SHIPLOG_TOKEN ?? "").trim() !== "";
  if (tokenGiven) {
    issues.push({
      field: `SHIPLOG_TOKEN / ${fieldName("tokenFile")}, ${fieldName("appId")}`,
      rule: "one of token or App",
      message: "give either an API token or an App (--app-id and --app-private-key-file), not both",
    });
  }
  if (raw.appId === undefined)
    issues.push({ field: fieldName("appId"), rule: "required with an App", message: "the App's id is required to authenticate as an App" });
  if (raw.appPrivateKeyFile === undefined) {
    issues.push({
      field: fieldName("appPrivateKeyFile"),
      rule: "required with an App",
      message: "the file holding the App's private key is required",
    });
    return { privateKeyFile: "", privateKey: "" };
  }
  let privateKey = "";
  const setting = fieldName("appPrivateKeyFile");
  try {
    privateKey = readBoundedFile(raw.appPrivateKeyFile, {
      setting,
      holds: "the App's private key",
      maxBytes: MAX_SECRET_FILE_BYTES,
      secret: true,
    });
  } catch (error) {
    if (!(error instanceof BoundedFileError)) throw error;
    issues.push({ field: error.setting, rule: error.rule, message: error.detail });
    return { privateKeyFile: raw.appPrivateKeyFile, privateKey: "" };
  }
  let rsa = false;
  try {
    rsa = createPrivateKey(privateKey).asymmetricKeyType === "rsa";
  } catch {}
  if (!rsa) {
    issues.push({
      field: setting,
      rule: "PEM RSA private key",
      message: `${shownPath(raw.appPrivateKeyFile, true)} does not hold a PEM RSA private key (the App's .pem file)`,
    });
  }
  return { privateKeyFile: raw.appPrivateKeyFile, privateKey };
}
