// The rules of the credential settings every shiplog program reads (the command line, the controller, and the
// library's fromEnv): their flags and variables, an App id's and an installation id's form, and how large a token or
// key file may be. One definition, so a value one program takes the others take too.
import { ENVIRONMENT_VARIABLES as V } from "./environment.js";

/** The credential settings' flags (without `--`) and variables. */
export const CREDENTIAL_SETTINGS = {
  tokenFile: { flag: "token-file", env: V.tokenFile },
  appId: { flag: "app-id", env: V.appId },
  appPrivateKeyFile: { flag: "app-private-key-file", env: V.appPrivateKeyFile },
  appInstallationId: { flag: "app-installation-id", env: V.appInstallationId },
} as const;

/** An App's numeric id or its client id (letters, digits, '.'), anchored, in the syntax JavaScript and RE2 share. */
export const APP_ID_PATTERN = "^[A-Za-z0-9.]+$";

/** An installation id: a positive whole number that fits a safe integer (at most 16 digits). */
export const APP_INSTALLATION_ID_PATTERN = "^[1-9][0-9]{0,15}$";

/** Most bytes a token or App private key file may hold (a 4096-bit RSA key in PEM is about 3.3 KiB). */
export const MAX_SECRET_FILE_BYTES = 64 * 1024;
