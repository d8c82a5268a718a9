import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));

describe("shiplog-fake-cluster CLI", () => {
  it("starts with --seed, serves the demo workloads, and stops on SIGTERM", async () => {
    const child = spawn(process.execPath, [cli, "--port", "0", "--seed"], { stdio: ["ignore", "pipe", "inherit"] });
    const [line] = (await once(child.stdout, "data")) as [Buffer];
    const started = JSON.parse(line.toString()) as { url: string; pods: number };
    expect(started.pods).toBeGreaterThan(0);
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "c", server: started.url, skipTLSVerify: true }],
      users: [{ name: "u" }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x",
    });
    const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: "shop" });
    expect(pods.items.length).toBeGreaterThan(0);
    expect(pods.items.every((p) => p.status?.phase === "Running")).toBe(true);
    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);
  });

  it("refuses a bad --port with exit code 64 and names the flag", async () => {
    const child = spawn(process.execPath, [cli, "--port", "nope"], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const [code] = await once(child, "exit");
    expect(code).toBe(64);
    expect(stderr).toContain("--port");
  });
});
