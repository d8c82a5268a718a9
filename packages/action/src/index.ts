import * as core from "@actions/core";
import { run } from "./main.js";

// The entry the runner starts (bundled to dist/index.js); run() reports its own failures as annotations.
run().catch((error: unknown) => core.setFailed(`shiplog action crashed: ${error instanceof Error ? error.message : String(error)}`));
