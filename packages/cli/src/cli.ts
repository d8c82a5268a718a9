#!/usr/bin/env node
import { runCli } from "./run-cli.js";

// The bin entry: everything else lives in run-cli.ts so it can run in-process too.
// Ctrl-C aborts the signal: a tail finishes the line it prints and exits 0; a second Ctrl-C ends at once.
const stop = new AbortController();
process.once("SIGINT", () => {
  stop.abort();
  process.once("SIGINT", () => process.exit(130));
});

// A reader that went away (`shiplog events tail --json | head -3`) ends the command as Ctrl-C does, with nothing
// more written and no stack trace: node ignores SIGPIPE, so the write fails with EPIPE instead.
const closed = new Set<NodeJS.WriteStream>();
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    closed.add(stream);
    if (stream === process.stdout) stop.abort();
  });
}
const write = (stream: NodeJS.WriteStream) => (text: string) => {
  if (!closed.has(stream)) stream.write(text);
};

const code = await runCli(
  process.argv.slice(2),
  {
    stdout: write(process.stdout),
    stderr: write(process.stderr),
    ...(process.stderr.isTTY && { progressStream: process.stderr }),
    ...(process.stdout.isTTY && { columns: process.stdout.columns }),
  },
  { signal: stop.signal },
);
process.exitCode = code;
