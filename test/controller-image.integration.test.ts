// The controller image (packages/controller/Dockerfile). No Docker engine runs on our machines, so this checks what
// can be checked here: the Dockerfile's rules (Node 24, pinned tags, a numeric non-root user, the bundle as the
// entry point), and the very bundle the Dockerfile copies, run alone (no node_modules) as uid 65532 from a
// directory that user cannot write, against the fake cluster and the emulator.
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startEmulator, type Emulator } from "@shiplog/emulator";
import { startFakeCluster, type FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dockerStages, imageEnv } from "./kit/controller-image.js";
import { startControllerCommand } from "./kit/controller-process.js";
import { REPO_ROOT } from "./chart/helm.js";
import { tempDir } from "./kit/temp-dir.js";

const CONTROLLER_DIR = join(REPO_ROOT, "packages/controller");
const dockerfile = readFileSync(join(CONTROLLER_DIR, "Dockerfile"), "utf8");
const UID = 65532;

describe("controller image: the Dockerfile", () => {
  const stages = dockerStages(dockerfile);
  const all = stages.flat();
  const runtime = stages.at(-1)!;

  it("builds and runs on Node 24 images with explicit tags, never latest", () => {
    const images = all.filter((i) => i.keyword === "FROM").map((i) => i.args.split(/\s+/)[0]!);
    expect(images.length).toBeGreaterThanOrEqual(2);
    for (const image of images) {
      expect(image).toMatch(/^node:24(\.\d+){0,2}-[a-z0-9-]+(@sha256:[a-f0-9]{64})?$/);
      expect(image).not.toMatch(/:latest\b/);
    }
  });

  it("the runtime stage runs as a numeric non-root user and starts the bundle with node, in exec form", () => {
    const users = runtime.filter((i) => i.keyword === "USER").map((i) => i.args);
    expect(users.length).toBeGreaterThan(0);
    const [uid, gid] = users.at(-1)!.split(":");
    expect(Number(uid)).toBe(UID);
    expect(Number(gid)).toBe(UID);
    const entrypoint = runtime.find((i) => i.keyword === "ENTRYPOINT")!;
    expect(JSON.parse(entrypoint.args)).toEqual(["node", "/app/controller.js"]);
    // Only the bundle reaches the runtime stage, read-only, from the path the package's bundle script writes.
    const copies = runtime.filter((i) => i.keyword === "COPY");
    expect(copies).toHaveLength(1);
    expect(copies[0]!.args).toMatch(/--from=build .*\/src\/packages\/controller\/dist\/bundle\/controller\.js \/app\/controller\.js$/);
    const script = (JSON.parse(readFileSync(join(CONTROLLER_DIR, "package.json"), "utf8")) as { scripts: { bundle: string } }).scripts
      .bundle;
    expect(script).toContain("--outfile=dist/bundle/controller.js");
    // The chart's container port is the one the image documents.
    expect(runtime.find((i) => i.keyword === "EXPOSE")!.args).toBe("8080");
  });

  it("runs in production mode with glibc's mmap threshold fixed, so freed large blocks go back to the system", () => {
    expect(imageEnv(dockerfile)).toEqual({ NODE_ENV: "production", MALLOC_MMAP_THRESHOLD_: "131072" });
  });
});

describe("controller image: the bundle the Dockerfile copies", () => {
  let root: string;
  let node: string;
  let bundle: string;
  let asUser: string[];

  beforeAll(() => {
    const built = spawnSync("npm", ["run", "--silent", "bundle"], { cwd: CONTROLLER_DIR, encoding: "utf8" });
    if (built.status !== 0) throw new Error(`npm run bundle failed:\n${built.stdout}\n${built.stderr}`);
    // An image-like root: node and the bundle only, owned by root, not writable by the controller's user.
    root = tempDir("shiplog-image-");
    chmodSync(root, 0o755);
    mkdirSync(join(root, "app"));
    node = join(root, "node");
    bundle = join(root, "app/controller.js");
    copyFileSync(realpathSync(process.execPath), node);
    chmodSync(node, 0o755);
    copyFileSync(join(CONTROLLER_DIR, "dist/bundle/controller.js"), bundle);
    chmodSync(bundle, 0o444);
    // As root (CI), drop to the image's user like the container runtime does; otherwise we are non-root already.
    asUser = process.getuid?.() === 0 ? ["setpriv", `--reuid=${UID}`, `--regid=${UID}`, "--clear-groups", "--"] : [];
  });
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("runs without node_modules as a non-root user: --help prints the usage", () => {
    const result = spawnSync(asUser[0] ?? node, [...asUser.slice(1), ...(asUser.length ? [node] : []), bundle, "--help"], {
      cwd: "/",
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin" },
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("Usage: shiplog-controller [flags]");
    expect(result.stdout).toContain("SHIPLOG_HTTP_PORT");
  });

  it("refuses a bad configuration with exit code 2, naming the setting", () => {
    const result = spawnSync(asUser[0] ?? node, [...asUser.slice(1), ...(asUser.length ? [node] : []), bundle, "--batch-size", "5000"], {
      cwd: "/",
      encoding: "utf8",
      env: { PATH: "/usr/bin:/bin", SHIPLOG_TOKEN: "t" },
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("--batch-size / SHIPLOG_BATCH_SIZE: must be an integer from 1 to 1000");
  });

  describe("against the fake cluster and the emulator", () => {
    let cluster: FakeCluster;
    let emulator: Emulator;
    beforeAll(async () => {
      cluster = await startFakeCluster({ nodes: ["node-1"] });
      emulator = await startEmulator({ port: 0 });
      await cluster.script.createDeployment({
        namespace: "shop",
        name: "cart",
        image: "nginx:1.25",
        replicas: 1,
        annotations: { "shiplog.dev/repository": "web" },
      });
      await cluster.settle();
    });
    afterAll(async () => {
      await emulator?.stop();
      await cluster?.stop();
    });

    it("becomes ready, records what runs, reports its uid as non-root, and stops cleanly on SIGTERM", async () => {
      const secrets = tempDir("shiplog-image-secrets-");
      chmodSync(secrets, 0o755);
      writeFileSync(join(secrets, "kubeconfig"), cluster.kubeconfig, { mode: 0o444 });
      writeFileSync(join(secrets, "token"), `${emulator.tokens.admin!}\n`, { mode: 0o444 });
      const command = [...(asUser.length ? asUser : []), node, bundle];
      const controller = startControllerCommand(command, {
        KUBECONFIG: join(secrets, "kubeconfig"),
        SHIPLOG_TOKEN_FILE: join(secrets, "token"),
        SHIPLOG_API_URL: emulator.url,
        SHIPLOG_ORG: "acme",
        SHIPLOG_CLUSTER: "image-test",
        SHIPLOG_LOGICAL_ENVIRONMENT: "production",
        SHIPLOG_FLUSH_MAX_WAIT: "200ms",
        SHIPLOG_HTTP_HOST: "127.0.0.1",
        SHIPLOG_HTTP_PORT: "0",
        ...imageEnv(dockerfile),
      });
      try {
        const base = await controller.url();
        await vi.waitFor(async () => expect((await fetch(`${base}/readyz`)).status).toBe(200), { timeout: 20_000, interval: 100 });
        await vi.waitFor(async () => expect((await fetch(`${base}/healthz`)).status).toBe(200), { timeout: 20_000, interval: 100 });
        const metrics = await (await fetch(`${base}/metrics`)).text();
        expect(metrics).toContain("shiplog_controller_requests_total");
        const records = emulator.state.artifacts.deploymentRecords({ org: "acme", cluster: "image-test" });
        expect(records.map((r) => [r.deployment_name, r.status])).toEqual([["shop-cart-nginx", "deployed"]]);
        const status = readFileSync(`/proc/${controller.child.pid}/status`, "utf8");
        const uid = Number(/^Uid:\s+(\d+)/m.exec(status)![1]);
        if (asUser.length) expect(uid).toBe(UID);
        expect(uid).not.toBe(0);
      } finally {
        const code = await controller.stop();
        rmSync(secrets, { recursive: true, force: true });
        expect(code, controller.output()).toBe(0);
      }
    });
  });
});
