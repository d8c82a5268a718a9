// @shiplog/client/schemas: the zod schemas of every request and answer, and the helpers that turn a schema's
// verdict into field issues. zod is the client's dependency; importing these ties your code to its major version.
export * from "./common.js";
export * from "./open-enum.js";
export * from "./users.js";
export * from "./artifact-metadata.js";
export * from "./git.js";
export * from "./notifications.js";
export * from "./activity.js";
export * from "./issue-events.js";
export * from "./source-imports.js";
export * from "./apps.js";
export { parseRequest, parseResponse, toFieldIssues } from "./validation.js";
