// The setup the source import tests share: one emulator and a classic-token client per file, the importer reset and
// the clock frozen before each test. `emulator` and `client` are live bindings, set once the hooks have run.
import { afterAll, beforeAll, beforeEach } from "vitest";
import { ShiplogClient } from "@shiplog/client";
import { startEmulator, type Emulator } from "@shiplog/emulator";

/** The repository the tests import into. */
export const target = { owner: "acme", repo: "api" };
/** A Subversion source the simulated importer knows. */
export const SVN_URL = "https://svn.example.com/svn/myproject";

export let emulator: Emulator;
export let client: ShiplogClient;

/** Registers the file's hooks: start the emulator and client; before each test reset imports and limits, freeze the clock at `clockAt`. */
export function useImportEmulator(clockAt: string): void {
  beforeAll(async () => {
    emulator = await startEmulator();
    client = new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.classic, retry: false });
  });
  afterAll(() => emulator.stop());
  beforeEach(() => {
    emulator.imports.reset();
    // Every test starts at the same frozen instant: the secondary limits' windows start afresh with it.
    emulator.secondaryLimits.reset();
    emulator.clock.set(clockAt, { freeze: true });
  });
}
