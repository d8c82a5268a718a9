#!/usr/bin/env node
import { runCli } from "./run-cli.js";

// The bin entry: everything else lives in run-cli.ts so it can run in-process too.
// Ctrl-C aborts the signal: a tail finishes the line it prints and exits 0; a second Ctrl-C ends at once.
const stop = new AbortController();
process.once("SIGINT", () => {
  stop.abort();
  process.once("SIGINT", () => process.exit(130));
});
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  ...(process.stderr.isTTY && { progressStream: process.stderr }),
}, { signal: stop.signal });
process.exitCode = code;
