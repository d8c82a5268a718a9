#!/usr/bin/env node
import { runCli } from "./run-cli.js";

// The bin entry: everything else lives in run-cli.ts so it can run in-process too.
const code = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
process.exitCode = code;
