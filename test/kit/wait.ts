// The deadline of `vi.waitFor` for what happens on its own (a controller converging, a watch event arriving, a
// process starting): generous, as the machine running the tests may be loaded; a deadline, never a timing.

/** `vi.waitFor` options: retry every 50 ms for up to 20 s. */
export const WAIT = { timeout: 20_000, interval: 50 } as const;
