// The built `shiplog-emulator` command: what it prints about tokens, its request log's time, and a bad fixture.
import { writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { defaultFixture } from "@shiplog/emulator";
import { startProcess } from "../../../test/kit/process.js";
import { tempDir } from "../../../test/kit/temp-dir.js";

const cli = resolve(dirname(fileURLToPath(import.meta.url)), "../dist/cli.js");
const tokenValues = (defaultFixture.tokens ?? []).map((t) => t.token);

/** Runs the command until it has printed its last token line (then stops it), or until it exits. */
async function run(args: string[]): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const emulator = startProcess(process.execPath, [cli, "--port", "0", ...args]);
  // A refused fixture ends the process before any token line.
  await emulator.line(/token noGrants/).catch(() => undefined);
  const code = await emulator.stop();
  return { stdout: emulator.stdout(), stderr: emulator.stderr(), code };
}

describe("shiplog-emulator", () => {
  it("prints token names and types, never their values, by default", async () => {
    const { stdout } = await run([]);
    expect(stdout).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(stdout).toMatch(/^ {2}token admin +fine_grained$/m);
    expect(stdout).toMatch(/^ {2}token installation +app_installation$/m);
    for (const value of tokenValues) expect(stdout).not.toContain(value);
  });

  it("says the secondary rate limits are on with the service's figures, or what the flags made of them", async () => {
    expect((await run([])).stdout).toContain(
      "secondary rate limits on, per caller: 100 requests in flight, 900 points a minute per endpoint, " +
        "80 content-generating requests a minute and 500 an hour (answered 403 with retry-after)",
    );
    const changed = await run(["--content-per-minute", "20", "--secondary-limit-status", "429", "--no-retry-after"]);
    expect(changed.stdout).toContain("20 content-generating requests a minute and 500 an hour (answered 429, no retry-after)");
    expect((await run(["--no-secondary-limits"])).stdout).toContain("secondary rate limits off");
  });

  it("says how long installation tokens live when --installation-token-lifetime shortens them", async () => {
    expect((await run([])).stdout).not.toContain("App installation tokens live");
    expect((await run(["--installation-token-lifetime", "540"])).stdout).toContain(
      "App installation tokens live 540 s (the service's: 3600 s)",
    );
  });

  it("logs requests (--log) at the emulator's time, as it answers: --clock moves the log lines' time too", async () => {
    const emulator = startProcess(process.execPath, [cli, "--port", "0", "--log", "--no-seed", "--clock", "2024-03-01T12:00:00Z"]);
    try {
      const url = /listening on (http:\/\/\S+)/.exec(await emulator.line(/listening on http/))![1]!;
      await (await fetch(`${url}/rate_limit`)).arrayBuffer();
      const logged = JSON.parse(await emulator.line(/"url":"\/rate_limit"/)) as { time: number };
      // The clock runs on from its start: a minute is ample for a loaded machine.
      expect(logged.time - Date.parse("2024-03-01T12:00:00Z")).toBeGreaterThanOrEqual(0);
      expect(logged.time - Date.parse("2024-03-01T12:00:00Z")).toBeLessThan(60_000);
    } finally {
      await emulator.stop();
    }
  });

  it("prints the values too with --show-tokens", async () => {
    const { stdout } = await run(["--show-tokens"]);
    for (const token of defaultFixture.tokens ?? [])
      expect(stdout).toMatch(new RegExp(`^ {2}token ${token.name} +${token.type} +${token.token}$`, "m"));
  });

  it("refuses a bad fixture with exit code 2, naming the fields and not echoing a token", async () => {
    const dir = tempDir("emulator-cli-");
    const file = join(dir, "world.json");
    await writeFile(
      file,
      JSON.stringify({ orgs: [{ login: "acme" }], tokens: [{ name: "mine", token: "real_looking_secret_123", type: "personal" }] }),
    );
    const { code, stderr, stdout } = await run(["--fixture", file]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain("fixture.orgs[0].id");
    expect(stderr).toContain("fixture.tokens[0].type");
    expect(stderr).not.toContain("real_looking_secret_123");
  });
});
