// The machine's real kubectl against the fake cluster: every check compares what kubectl prints with what it prints
// against a real API server (the server's own wording). Prints a FAITHFUL/DIVERGES table; a divergence that is
// not named in the fake cluster's README fails the test.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeCluster } from "@shiplog/fake-cluster";
import type { FakeCluster } from "@shiplog/fake-cluster";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/kit/temp-dir.js";

const KUBECTL = process.env.KUBECTL ?? "kubectl";
const hasKubectl = spawnSync(KUBECTL, ["version", "--client"], { encoding: "utf8" }).status === 0;
// CI installs kubectl (Debian's kubernetes-client) when missing, so there its absence is a failure, not a skip.
const runIt = hasKubectl || process.env.CI === "true";

/** These differ from a real API server on purpose; each is explained in packages/fake-cluster/README.md. */
const KNOWN_DIVERGENCES = new Set(["apply --server-side"]);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

interface Check {
  name: string;
  faithful: boolean;
  detail: string;
}

describe.runIf(runIt)("kubectl against the fake cluster", () => {
  let cluster: FakeCluster;
  let dir: string;
  const checks: Check[] = [];

  const kubectl = (args: string[], input?: string): Promise<Result> =>
    new Promise((resolve, reject) => {
      const child = spawn(KUBECTL, args, {
        env: { ...process.env, KUBECONFIG: join(dir, "kubeconfig"), KUBECACHEDIR: join(dir, "cache"), HOME: dir },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(input ?? "");
    });

  /** Runs kubectl and records whether its output holds every expected piece (and the exit code). */
  // Independent checks run side by side (kubectl start-up dominates); each keeps its place in the table.
  const check = async (
    name: string,
    args: string[],
    expected: (string | RegExp)[],
    options: { input?: string; code?: number } = {},
  ): Promise<Result> => {
    const slot = checks.push({ name, faithful: false, detail: "did not finish" }) - 1;
    const result = await kubectl(args, options.input);
    const text = `${result.stdout}${result.stderr}`;
    const missing = expected.filter((e) => (typeof e === "string" ? !text.includes(e) : !e.test(text)));
    const codeOk = options.code === undefined ? true : result.code === options.code;
    checks[slot] = {
      name,
      faithful: missing.length === 0 && codeOk,
      detail: missing.length > 0 || !codeOk ? `exit ${result.code}: ${text.trim().slice(0, 300)}` : "",
    };
    return result;
  };
  /** Records a check decided by the cluster's state. */
  const record = (name: string, faithful: boolean, detail = "") => checks.push({ name, faithful, detail });

  const deploymentYaml = (
    name: string,
    extra: { replicas?: string; labels?: string; spec?: string; selector?: string; image?: string } = {},
  ) => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: default${extra.labels ? `\n  labels: ${extra.labels}` : ""}
spec:
  replicas: ${extra.replicas ?? "2"}${extra.spec ?? ""}
  selector:
    matchLabels: ${extra.selector ?? `{app: ${name.slice(0, 63)}}`}
  template:
    metadata:
      labels: {app: ${name.slice(0, 63)}}
    spec:
      containers:
      - name: main
        image: ${extra.image ?? "nginx:1.25"}
`;

  beforeAll(async () => {
    expect(hasKubectl, `no ${KUBECTL} on PATH (CI installs Debian's kubernetes-client)`).toBe(true);
    dir = tempDir("kubectl-conformance-");
    cluster = await startFakeCluster({ nodes: ["node-1", "node-2"] });
    writeFileSync(join(dir, "kubeconfig"), cluster.kubeconfig);
  });
  afterAll(async () => {
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("behaves as against a real API server", { timeout: 120_000 }, async () => {
    const version = await kubectl(["version", "--client", "-o", "json"]);
    const kubectlVersion = (JSON.parse(version.stdout) as { clientVersion: { gitVersion: string } }).clientVersion.gitVersion;

    // Reading: short names, default and wide columns, YAML with the API server's defaults.
    await check("apply (client-side, server validation)", ["apply", "-f", "-"], ["deployment.apps/web created"], {
      input: deploymentYaml("web"),
    });
    await Promise.all([
      check("get ns (short name)", ["get", "ns"], [/default\s+Active/]),
      check(
        "get deploy (short name, columns)",
        ["get", "deploy", "web"],
        [/NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE/, /web\s+2\/2\s+2\s+2/],
      ),
      check(
        "get po -o wide",
        ["get", "po", "-o", "wide"],
        [/NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES/, /1\/1\s+Running/],
      ),
      check(
        "get rs -o wide",
        ["get", "rs", "-o", "wide"],
        [/DESIRED\s+CURRENT\s+READY\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR/, "app=web,pod-template-hash="],
      ),
      check(
        "get -o yaml (defaults, revision)",
        ["get", "deploy", "web", "-o", "yaml"],
        [
          'deployment.kubernetes.io/revision: "1"',
          "progressDeadlineSeconds: 600",
          "revisionHistoryLimit: 10",
          "dnsPolicy: ClusterFirst",
          "schedulerName: default-scheduler",
          "terminationMessagePath: /dev/termination-log",
          "imagePullPolicy: IfNotPresent",
          "terminationGracePeriodSeconds: 30",
        ],
      ),
      check(
        "get po -o yaml (pod defaults)",
        ["get", "po", "-l", "app=web", "-o", "yaml"],
        ["serviceAccountName: default", "restartPolicy: Always"],
      ),
      check("get all (category)", ["get", "all"], ["deployment.apps/web", "replicaset.apps/web-", "pod/web-"]),
    ]);
    for (const name of ["c1", "c2", "c3"])
      await cluster.script.create("configmaps", { metadata: { name, namespace: "default" }, data: { k: "v" } });
    await check("get --chunk-size", ["get", "cm", "--chunk-size=1"], [/c1\s+1/, /c2\s+1/, /c3\s+1/]);

    // Watching: a bounded `get -w` sees an object created after it started, printed in the list's columns (NAME DATA
    // AGE): its watch events come as Tables, as a real API server sends them (objects would print as NAME AGE only).
    const watcher = spawn(KUBECTL, ["get", "cm", "-w", "--request-timeout=20s"], {
      env: { ...process.env, KUBECONFIG: join(dir, "kubeconfig"), KUBECACHEDIR: join(dir, "cache"), HOME: dir },
    });
    let watched = "";
    const seen = new Promise<void>((resolve) => {
      watcher.stdout.on("data", (d) => {
        watched += d;
        // Wait for the whole line: kubectl may write the name and the columns after it in separate chunks.
        if (/^watched-cm.*\n/m.test(watched)) resolve();
      });
      watcher.on("close", () => resolve());
    });
    await cluster.waitForWatches("configmaps", 1);
    await cluster.script.create("configmaps", { metadata: { name: "watched-cm", namespace: "default" } });
    await seen;
    watcher.kill();
    record("get -w", /^watched-cm\s+0\s+\d+s\s*$/m.test(watched) && !/^NAME\s+AGE\s*$/m.test(watched), watched.slice(0, 200));

    // Dry runs and diff change nothing.
    const rvBefore = cluster.store.resourceVersion();
    await Promise.all([
      check("apply --dry-run=server", ["apply", "--dry-run=server", "-f", "-"], ["deployment.apps/web configured (server dry run)"], {
        input: deploymentYaml("web", { replicas: "3" }),
      }),
      check("diff", ["diff", "-f", "-"], ["-  replicas: 2", "+  replicas: 3"], {
        input: deploymentYaml("web", { replicas: "3" }),
        code: 1,
      }),
    ]);
    await cluster.settle();
    record(
      "dry run stores nothing",
      cluster.store.resourceVersion() === rvBefore && cluster.store.get("deployments", "default", "web")!.spec!.replicas === 2,
    );

    // Writing: scale, set image, rollouts, patches, labels, annotations, wait.
    await check("set image", ["set", "image", "deploy/web", "main=nginx:1.26"], ["deployment.apps/web image updated"]);
    await check("rollout status", ["rollout", "status", "deploy/web", "--timeout=30s"], ['deployment "web" successfully rolled out']);
    await check("rollout history", ["rollout", "history", "deploy/web"], [/REVISION\s+CHANGE-CAUSE/, /^1\s/m, /^2\s/m]);
    await check("rollout undo", ["rollout", "undo", "deploy/web"], ["deployment.apps/web rolled back"]);
    await check("rollout status after undo", ["rollout", "status", "deploy/web", "--timeout=30s"], ["successfully rolled out"]);
    await cluster.settle();
    const sets = cluster.store.list("replicasets", { namespace: "default", labelSelector: "app=web" });
    const images = cluster.store.list("pods", { namespace: "default", labelSelector: "app=web" }).map((p) => p.spec!.containers![0]!.image);
    record(
      "rollout undo reuses the old ReplicaSet",
      sets.length === 2 && images.every((i) => i === "nginx:1.25"),
      `${sets.length} ReplicaSets, images ${images}`,
    );
    await check(
      "patch (strategic)",
      ["patch", "deploy", "web", "-p", '{"spec":{"template":{"spec":{"containers":[{"name":"main","env":[{"name":"A","value":"1"}]}]}}}}'],
      ["deployment.apps/web patched"],
    );
    await check(
      "patch (merge)",
      ["patch", "deploy", "web", "--type=merge", "-p", '{"spec":{"replicas":2}}'],
      ["deployment.apps/web patched"],
    );
    await check(
      "patch (json)",
      [
        "patch",
        "deploy",
        "web",
        "--type=json",
        "-p",
        '[{"op":"test","path":"/spec/selector","value":{"matchLabels":{"app":"web"}}},{"op":"replace","path":"/spec/replicas","value":1}]',
      ],
      ["deployment.apps/web patched"],
    );
    await check(
      "patch $patch: delete drops the emptied list",
      [
        "patch",
        "deploy",
        "web",
        "-p",
        '{"spec":{"template":{"spec":{"containers":[{"name":"main","env":[{"name":"A","$patch":"delete"}]}]}}}}',
      ],
      ["deployment.apps/web patched"],
    );
    record(
      "no empty env after $patch: delete",
      cluster.store.get("deployments", "default", "web")!.spec!.template!.spec!.containers![0]!.env === undefined,
    );
    await check("label", ["label", "deploy", "web", "tier=front"], ["deployment.apps/web labeled"]);
    await check("annotate", ["annotate", "deploy", "web", "owner=team-a"], ["deployment.apps/web annotated"]);
    await check("wait", ["wait", "--for=condition=Available", "deploy/web", "--timeout=30s"], ["deployment.apps/web condition met"]);

    // Deleting with each cascade.
    await Promise.all(["orphaned", "fg", "bg"].map((name) => kubectl(["apply", "-f", "-"], deploymentYaml(name, { replicas: "1" }))));
    await cluster.settle();
    await Promise.all([
      check("delete --cascade=orphan", ["delete", "deploy", "orphaned", "--cascade=orphan"], ['deployment.apps "orphaned" deleted']),
      check("delete --cascade=foreground", ["delete", "deploy", "fg", "--cascade=foreground"], ['deployment.apps "fg" deleted']),
      check("delete --cascade=background", ["delete", "deploy", "bg", "--cascade=background"], ['deployment.apps "bg" deleted']),
    ]);
    await cluster.settle();
    const orphan = cluster.store.list("replicasets", { namespace: "default", labelSelector: "app=orphaned" });
    record("orphaned ReplicaSet has no ownerReferences field", orphan.length === 1 && orphan[0]!.metadata.ownerReferences === undefined);
    record(
      "foreground and background delete the ReplicaSets",
      cluster.store.list("replicasets", { namespace: "default", labelSelector: "app in (fg,bg)" }).length === 0,
    );

    // Invalid writes, answered in the API server's words.
    const invalidCm = (body: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad-cm\n  namespace: default\n${body}`;
    const lease = (duration: string) =>
      `apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l\n  namespace: default\nspec:\n  holderIdentity: a\n  leaseDurationSeconds: ${duration}\n`;
    const job =
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: default\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n        image: busybox\n";
    const longName = `long-${"n".repeat(237)}`;
    await cluster.script.createDaemonSet({ name: "agent", image: "busybox:1.36" });
    writeFileSync(join(dir, "big.txt"), "x".repeat(1024 * 1024 + 10));
    const apply = (name: string, input: string, expected: (string | RegExp)[]) =>
      check(name, ["apply", "-f", "-"], expected, { input, code: 1 });
    await Promise.all([
      check(
        "ConfigMap over 1 MiB",
        ["create", "configmap", "big", `--from-file=${join(dir, "big.txt")}`],
        ['ConfigMap "big" is invalid: []: Too long: must have at most 1048576 bytes'],
        { code: 1 },
      ),
      apply("ConfigMap key a/b", invalidCm("data:\n  a/b: x\n"), [
        'The ConfigMap "bad-cm" is invalid: data[a/b]: Invalid value: "a/b": a valid config key must consist of alphanumeric',
      ]),
      apply("ConfigMap key in data and binaryData", invalidCm("data:\n  k: x\nbinaryData:\n  k: eA==\n"), [
        'data[k]: Invalid value: "k": duplicate of key present in binaryData',
      ]),
      apply("ConfigMap binaryData not base64", invalidCm("binaryData:\n  k: '%%%'\n"), [
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte',
      ]),
      apply("Lease duration 0", lease("0"), [
        'The Lease "l" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      ]),
      apply('Lease duration "15"', lease('"15"'), [
        "cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32",
      ]),
      apply("replicas -5", deploymentYaml("neg", { replicas: "-5" }), [
        'The Deployment "neg" is invalid: spec.replicas: Invalid value: -5: must be greater than or equal to 0',
      ]),
      apply("replicas 2.5", deploymentYaml("frac", { replicas: "2.5" }), [
        "cannot unmarshal number 2.5 into Go struct field DeploymentSpec.spec.replicas of type int32",
      ]),
      apply('replicas "three"', deploymentYaml("three", { replicas: "three" }), [
        "cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
      ]),
      apply("selector changed", deploymentYaml("web", { selector: "{app: web, tier: front}" }), [
        /spec\.selector: Invalid value: .*: field is immutable/,
      ]),
      apply("label key x/y/z", deploymentYaml("lbl", { labels: '{"x/y/z": "1"}' }), [
        'metadata.labels: Invalid value: "x/y/z": a qualified name must consist of',
      ]),
      apply("unknown field (strict)", deploymentYaml("unk", { spec: "\n  bogusField: 1" }), [
        'strict decoding error: unknown field "spec.bogusField"',
      ]),
      check(
        "unknown field (warn)",
        ["apply", "--validate=warn", "-f", "-"],
        ['Warning: unknown field "spec.bogusField"', "deployment.apps/unk2 created"],
        {
          input: deploymentYaml("unk2", { spec: "\n  bogusField: 1" }),
        },
      ),
      check("242-character Deployment name", ["apply", "-f", "-"], [`deployment.apps/${longName} created`], {
        input: deploymentYaml(longName, { replicas: "1" }),
      }),
      check(
        "Job restartPolicy Always",
        ["create", "-f", "-"],
        ['spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"'],
        { input: job, code: 1 },
      ),
      check(
        "CronJob schedule",
        ["create", "cronjob", "cj", "--image=busybox", "--schedule=* * *"],
        ['spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: * * *'],
        { code: 1 },
      ),
      check("AlreadyExists", ["create", "configmap", "c1"], ['configmaps "c1" already exists'], { code: 1 }),
      check("label selector app in ()", ["get", "po", "-l", "app in ()"], ["Error from server (BadRequest)", "values set can't be empty"], {
        code: 1,
      }),
      check("label selector app=-bad-", ["get", "po", "-l", "app=-bad-"], ["Error from server (BadRequest)", 'Invalid value: "-bad-"'], {
        code: 1,
      }),
      check(
        "field selector spec.containers.image",
        ["get", "po", "--field-selector", "spec.containers.image=x"],
        ["Error from server (BadRequest)", "field label not supported: spec.containers.image"],
        { code: 1 },
      ),
      check(
        "field selector status.replicas on deployments",
        ["get", "deploy", "--field-selector", "status.replicas=1"],
        ["field label not supported: status.replicas"],
        { code: 1 },
      ),
      check("scale of a DaemonSet (no scale subresource)", ["scale", "ds", "agent", "--replicas=2"], ["Error from server (NotFound)"], {
        code: 1,
      }),
      // Server-side apply: a real API server applies it; the fake refuses with 415 (see README).
      check("apply --server-side", ["apply", "--server-side", "-f", "-"], ["deployment.apps/web serverside-applied"], {
        input: deploymentYaml("web"),
      }),
    ]);
    await cluster.settle();
    record(
      "242-character Deployment name gets pods",
      cluster.store.list("pods", { namespace: "default", labelSelector: `app=${longName.slice(0, 63)}` }).length === 1,
    );
    record(
      "nothing invalid was stored",
      ["neg", "frac", "three", "lbl", "unk"].every((n) => !cluster.store.get("deployments", "default", n)) &&
        !cluster.store.get("configmaps", "default", "big"),
    );

    const width = Math.max(...checks.map((c) => c.name.length));
    const table = checks.map((c) => `${c.name.padEnd(width)}  ${c.faithful ? "FAITHFUL" : "DIVERGES"}${c.faithful ? "" : `  ${c.detail}`}`);
    console.log(`kubectl ${kubectlVersion} against the fake cluster:\n${table.join("\n")}`);
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const unexpected = checks.filter((c) => !c.faithful && !KNOWN_DIVERGENCES.has(c.name));
    expect(unexpected, "divergences not named in README").toEqual([]);
    for (const name of KNOWN_DIVERGENCES) {
      expect(checks.find((c) => c.name === name)?.faithful, `${name} is listed as a divergence`).toBe(false);
      expect(readme, `README names the divergence "${name}"`).toContain(`\`${name}\``);
    }
  });
});
