// @shiplog/client/internal: pieces shiplog's own packages share with the client (the controller's backoff, a sleep,
// the bounded-file rule of every file a setting names). Exported in the workspace only: the published package's
// exports (publishConfig) leave it out and its files are not packed, so no user depends on it.
export { EQUAL_JITTER, backoffDelay } from "./timing/backoff.js";
export { systemClock, timerOn } from "./timing/clock.js";
export { sleep } from "./timing/sleep.js";
export {
  BoundedFileError,
  appendToBoundedFile,
  contentAsPathError,
  irregularKind,
  readBoundedFile,
  shownPath,
} from "./bounded-file.js";
export { APP_ID_PATTERN, APP_INSTALLATION_ID_PATTERN, CREDENTIAL_SETTINGS, MAX_SECRET_FILE_BYTES } from "./app-credential-rules.js";
export {
  IMAGE_NAME_PREFIX_PATTERN,
  namesRegistryHost,
  parseImageNamePrefix,
  parseImageReference,
  type ImageReference,
} from "./image-reference.js";
