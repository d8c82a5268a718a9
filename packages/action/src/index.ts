import * as core from "@actions/core";
import { redactSecrets } from "@shiplog/client";
import { run } from "./main.js";

// The entry the runner starts (bundled to dist/index.js by package.json `bundle`, which action.yml runs); run()
// reports its own failures as annotations. The package has no import surface: it is used as an action only.
//
// The bundle's banner (package.json `bundle`) provides `require` for the CommonJS dependencies, and sets V8's
// `--liftoff-only` before any code runs: undici parses HTTP with WebAssembly (llhttp), which V8 otherwise
// recompiles with TurboFan in background threads that the process waits for at exit (~100 ms of a ~250 ms run).
// A few responses per run need nothing beyond the baseline compiler. Set at run time, the flag no longer brings
// its implications on Node 24 (V8 13), so tier-up is switched off by name as well: without it Node 24 still
// waited 40-55 ms after the exit event, against about 20 ms with it (measured on a full run).
run().catch((error: unknown) =>
  core.setFailed(
    redactSecrets(`shiplog action crashed: ${error instanceof Error ? error.message : String(error)}`, [core.getInput("token")]),
  ),
);
