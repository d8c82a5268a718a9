// @shiplog/client/internal: pieces shiplog's own packages share with the client (the controller's and the pollers'
// backoff, a sleep, the bounded-file rule of every file a setting names). Not for users: no compatibility promise.
export { EQUAL_JITTER, FULL_JITTER, JITTER_ABOVE, backoffDelay, type BackoffPolicy, type Jitter } from "./timing/backoff.js";
export { sleep } from "./timing/sleep.js";
export {
  BoundedFileError,
  appendToBoundedFile,
  contentAsPathError,
  formatBytes,
  irregularKind,
  readBoundedFile,
  shownPath,
  type BoundedFileOptions,
} from "./bounded-file.js";
export { APP_ID_PATTERN, APP_INSTALLATION_ID_PATTERN, CREDENTIAL_SETTINGS, MAX_SECRET_FILE_BYTES } from "./app-credential-rules.js";
