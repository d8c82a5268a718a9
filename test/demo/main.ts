// shiplog's demo: the client, the CI action and the controller against the emulator and the fake cluster.
import { startEmulator } from "@shiplog/emulator";
import { runClientFlow } from "./client-flow.js";

const emulator = await startEmulator();
console.log(`shiplog demo: service emulator at ${emulator.url}`);
try {
  console.log("\n== 1. The library: storage and deployment records through @shiplog/client");
  await runClientFlow(emulator);
} finally {
  await emulator.stop();
}
