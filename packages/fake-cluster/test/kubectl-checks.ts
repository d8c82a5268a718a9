// kubectl's checks, run against any cluster: gets, watches, applies, dry runs, diffs, rollouts, patches, deletes with
// each cascade and invalid writes, each compared with what kubectl prints against a real API server (the server's own
// wording, checked against kube-apiserver v1.37 by kubectl-conformance.real.test.ts). State is read back through
// kubectl too, so the same checks run against the fake cluster and a real control plane. `api-versions` and `diff`
// come from the kubectl checks of Kubernetes' conformance suite (test/e2e/kubectl, [Conformance]).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** What a kubectl run printed. */
export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** A cluster the checks run against, through a kubectl binary and a kubeconfig. */
export interface KubectlTarget {
  /** The kubectl binary. */
  kubectl: string;
  /** The kubeconfig file. */
  kubeconfig: string;
  /** A folder for kubectl's cache and the checks' files. */
  dir: string;
  /** Resolves once the cluster has done what the last writes asked (the fake's settle; nothing on a real one). */
  settle(): Promise<void>;
  /** How long a state check waits for the cluster to get there (0: read once, after settle). */
  eventuallyMs: number;
}

/** One check's outcome: whether kubectl printed the server's words (or the state was as a real cluster leaves it). */
export interface CheckResult {
  name: string;
  passed: boolean;
  /** Why it failed: kubectl's exit code and output, or the state found. */
  detail: string;
}

/** Runs every check against `target`, in order; each keeps its place in the list. */
export async function runKubectlChecks(target: KubectlTarget): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  const env = { ...process.env, KUBECONFIG: target.kubeconfig, KUBECACHEDIR: join(target.dir, "cache"), HOME: target.dir };

  const kubectl = (args: string[], input?: string): Promise<KubectlResult> =>
    new Promise((resolve, reject) => {
      const child = spawn(target.kubectl, args, { env });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
      child.stdin.end(input ?? "");
    });
  /** Runs kubectl for a step that is not itself a check; fails loudly when the step fails. */
  const step = async (args: string[], input?: string) => {
    const result = await kubectl(args, input);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")}: exit ${result.code}: ${result.stderr.trim()}`);
    return result.stdout;
  };
  /** An object (or list) as JSON; undefined when kubectl finds none. */
  const getJson = async <T>(args: string[]): Promise<T | undefined> => {
    const result = await kubectl(["get", ...args, "-o", "json"]);
    return result.code === 0 ? (JSON.parse(result.stdout) as T) : undefined;
  };

  /** Runs kubectl and records whether its output holds every expected piece (and the exit code). */
  // Independent checks run side by side (kubectl start-up dominates); each keeps its place in the table.
  const check = async (
    name: string,
    args: string[],
    expected: (string | RegExp)[],
    options: { input?: string; code?: number } = {},
  ): Promise<KubectlResult> => {
    const slot = checks.push({ name, passed: false, detail: "did not finish" }) - 1;
    const result = await kubectl(args, options.input);
    const text = `${result.stdout}${result.stderr}`;
    const missing = expected.filter((e) => (typeof e === "string" ? !text.includes(e) : !e.test(text)));
    const codeOk = options.code === undefined ? result.code === 0 : result.code === options.code;
    checks[slot] = {
      name,
      passed: missing.length === 0 && codeOk,
      detail: missing.length > 0 || !codeOk ? `exit ${result.code}: ${text.trim().slice(0, 400)}` : "",
    };
    return result;
  };
  /** Records a check decided by the cluster's state, read until it holds or `eventuallyMs` has passed. */
  const record = async (name: string, state: () => Promise<{ ok: boolean; detail?: string }>) => {
    const slot = checks.push({ name, passed: false, detail: "did not finish" }) - 1;
    await target.settle();
    const deadline = Date.now() + target.eventuallyMs;
    for (;;) {
      const found = await state();
      if (found.ok || Date.now() >= deadline) {
        checks[slot] = { name, passed: found.ok, detail: found.ok ? "" : (found.detail ?? "") };
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  interface Meta {
    name: string;
    generation?: number;
    ownerReferences?: unknown[];
  }
  interface Deployment {
    metadata: Meta;
    spec: { replicas: number; template: { spec: { containers: { image: string; env?: unknown[] }[] } } };
  }
  interface List<T> {
    items: T[];
  }

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

  // Reading: short names, default and wide columns, YAML with the API server's defaults.
  await check("apply (client-side, server validation)", ["apply", "-f", "-"], ["deployment.apps/web created"], {
    input: deploymentYaml("web"),
  });
  await step(["rollout", "status", "deploy/web", "--timeout=60s"]);
  await Promise.all([
    check("api-versions lists v1", ["api-versions"], [/^v1$/m, /^apps\/v1$/m]),
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
  const configMapYaml = (name: string, data = "") =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\n${data}`;
  await Promise.all(["c1", "c2", "c3"].map((name) => step(["apply", "-f", "-"], configMapYaml(name, "data:\n  k: v\n"))));
  await check("get --chunk-size", ["get", "cm", "--chunk-size=1"], [/c1\s+1/, /c2\s+1/, /c3\s+1/]);

  // Watching: a bounded `get -w` sees an object created after it started, printed in the list's columns (NAME DATA
  // AGE): its watch events come as Tables, as a real API server sends them (objects would print as NAME AGE only).
  // kubectl watches from the list it printed, so once c3's row is out the watch sees what comes next.
  const watcher = spawn(target.kubectl, ["get", "cm", "-w", "--request-timeout=30s"], { env });
  let watched = "";
  const listed = new Promise<void>((resolve) => {
    watcher.stdout.on("data", (d) => {
      watched += d;
      if (/^c3\s.*\n/m.test(watched)) resolve();
    });
    watcher.on("close", () => resolve());
  });
  const seen = new Promise<void>((resolve) => {
    // Wait for the whole line: kubectl may write the name and the columns after it in separate chunks.
    watcher.stdout.on("data", () => /^watched-cm.*\n/m.test(watched) && resolve());
    watcher.on("close", () => resolve());
  });
  await listed;
  await step(["apply", "-f", "-"], configMapYaml("watched-cm"));
  await seen;
  watcher.kill();
  await record("get -w", async () => ({
    ok: /^watched-cm\s+0\s+\d+s\s*$/m.test(watched) && !/^NAME\s+AGE\s*$/m.test(watched),
    detail: watched.slice(0, 300),
  }));

  // Dry runs and diff change nothing.
  const before = await getJson<Deployment>(["deploy", "web"]);
  await Promise.all([
    check("apply --dry-run=server", ["apply", "--dry-run=server", "-f", "-"], ["deployment.apps/web configured (server dry run)"], {
      input: deploymentYaml("web", { replicas: "3" }),
    }),
    check("diff", ["diff", "-f", "-"], ["-  replicas: 2", "+  replicas: 3"], {
      input: deploymentYaml("web", { replicas: "3" }),
      code: 1,
    }),
  ]);
  await record("dry run stores nothing", async () => {
    const after = await getJson<Deployment>(["deploy", "web"]);
    return {
      ok: after?.metadata.generation === before?.metadata.generation && after?.spec.replicas === 2,
      detail: `generation ${before?.metadata.generation} -> ${after?.metadata.generation}, replicas ${after?.spec.replicas}`,
    };
  });

  // Writing: set image, rollouts, patches, labels, annotations, wait.
  await check("set image", ["set", "image", "deploy/web", "main=nginx:1.26"], ["deployment.apps/web image updated"]);
  await check("rollout status", ["rollout", "status", "deploy/web", "--timeout=60s"], ['deployment "web" successfully rolled out']);
  await check("rollout history", ["rollout", "history", "deploy/web"], [/REVISION\s+CHANGE-CAUSE/, /^1\s/m, /^2\s/m]);
  await check("rollout undo", ["rollout", "undo", "deploy/web"], ["deployment.apps/web rolled back"]);
  await check("rollout status after undo", ["rollout", "status", "deploy/web", "--timeout=60s"], ["successfully rolled out"]);
  await record("rollout undo reuses the old ReplicaSet", async () => {
    const sets = (await getJson<List<unknown>>(["rs", "-l", "app=web"]))?.items ?? [];
    const pods = (await getJson<List<Deployment>>(["po", "-l", "app=web"]))?.items ?? [];
    const images = pods.map((p) => (p.spec as unknown as { containers: { image: string }[] }).containers[0]!.image);
    return {
      ok: sets.length === 2 && images.length === 2 && images.every((i) => i === "nginx:1.25"),
      detail: `${sets.length} ReplicaSets, images ${images}`,
    };
  });
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
  await record("no empty env after $patch: delete", async () => {
    const env = (await getJson<Deployment>(["deploy", "web"]))?.spec.template.spec.containers[0]?.env;
    return { ok: env === undefined, detail: `env ${JSON.stringify(env)}` };
  });
  await check("label", ["label", "deploy", "web", "tier=front"], ["deployment.apps/web labeled"]);
  await check("annotate", ["annotate", "deploy", "web", "owner=team-a"], ["deployment.apps/web annotated"]);
  await check("wait", ["wait", "--for=condition=Available", "deploy/web", "--timeout=60s"], ["deployment.apps/web condition met"]);

  // Deleting with each cascade.
  await Promise.all(["orphaned", "fg", "bg"].map((name) => step(["apply", "-f", "-"], deploymentYaml(name, { replicas: "1" }))));
  await Promise.all(["orphaned", "fg", "bg"].map((name) => step(["rollout", "status", `deploy/${name}`, "--timeout=60s"])));
  await Promise.all([
    check("delete --cascade=orphan", ["delete", "deploy", "orphaned", "--cascade=orphan"], ['deployment.apps "orphaned" deleted']),
    check("delete --cascade=foreground", ["delete", "deploy", "fg", "--cascade=foreground"], ['deployment.apps "fg" deleted']),
    check("delete --cascade=background", ["delete", "deploy", "bg", "--cascade=background"], ['deployment.apps "bg" deleted']),
  ]);
  await record("orphaned ReplicaSet has no ownerReferences field", async () => {
    const orphan = (await getJson<List<{ metadata: Meta }>>(["rs", "-l", "app=orphaned"]))?.items ?? [];
    return {
      ok: orphan.length === 1 && orphan[0]!.metadata.ownerReferences === undefined,
      detail: `${orphan.length} ReplicaSets, ownerReferences ${JSON.stringify(orphan[0]?.metadata.ownerReferences)}`,
    };
  });
  await record("foreground and background delete the ReplicaSets", async () => {
    const left = (await getJson<List<{ metadata: Meta }>>(["rs", "-l", "app in (fg,bg)"]))?.items ?? [];
    return { ok: left.length === 0, detail: `left: ${left.map((rs) => rs.metadata.name).join(", ")}` };
  });

  // Invalid writes, answered in the API server's words.
  const invalidCm = (body: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad-cm\n  namespace: default\n${body}`;
  const lease = (duration: string) =>
    `apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: l\n  namespace: default\nspec:\n  holderIdentity: a\n  leaseDurationSeconds: ${duration}\n`;
  const job =
    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: default\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n        image: busybox\n";
  const daemonSet =
    "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n  namespace: default\nspec:\n  selector:\n    matchLabels: {app: agent}\n" +
    "  template:\n    metadata:\n      labels: {app: agent}\n    spec:\n      containers:\n      - name: agent\n        image: busybox:1.36\n";
  const longName = `long-${"n".repeat(237)}`;
  await step(["apply", "-f", "-"], daemonSet);
  writeFileSync(join(target.dir, "big.txt"), "x".repeat(1024 * 1024 + 10));
  const apply = (name: string, input: string, expected: (string | RegExp)[]) =>
    check(name, ["apply", "-f", "-"], expected, { input, code: 1 });
  await Promise.all([
    check(
      "ConfigMap over 1 MiB",
      ["create", "configmap", "big", `--from-file=${join(target.dir, "big.txt")}`],
      ['ConfigMap "big" is invalid: []: Too long: may not be more than 1048576 bytes'],
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
      'metadata.labels: Invalid value: "x/y/z": a valid label key must consist of',
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
      ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"'],
      { input: job, code: 1 },
    ),
    check(
      "CronJob schedule",
      ["create", "cronjob", "cj", "--image=busybox", "--schedule=* * *"],
      ['spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]'],
      { code: 1 },
    ),
    check("AlreadyExists", ["create", "configmap", "c1"], ['configmaps "c1" already exists'], { code: 1 }),
    // labels.Parse reads "()" as ("") (apimachinery v0.37 pkg/labels/selector.go, parseValues): no pod has app="".
    check("label selector app in ()", ["get", "po", "-l", "app in ()"], ["No resources found in default namespace."]),
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
      ['"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'],
      { code: 1 },
    ),
    check("scale of a DaemonSet (no scale subresource)", ["scale", "ds", "agent", "--replicas=2"], ["Error from server (NotFound)"], {
      code: 1,
    }),
    // Server-side apply: a real API server applies it; the fake refuses with 415 (see README).
    // --force-conflicts: the patches above made kubectl-patch the manager of spec.replicas.
    check("apply --server-side", ["apply", "--server-side", "--force-conflicts", "-f", "-"], ["deployment.apps/web serverside-applied"], {
      input: deploymentYaml("web"),
    }),
  ]);
  await record("242-character Deployment name gets pods", async () => {
    const pods = (await getJson<List<unknown>>(["po", "-l", `app=${longName.slice(0, 63)}`]))?.items ?? [];
    return { ok: pods.length === 1, detail: `${pods.length} pods` };
  });
  await record("nothing invalid was stored", async () => {
    const found = await kubectl([
      "get",
      "deploy/neg",
      "deploy/frac",
      "deploy/three",
      "deploy/lbl",
      "deploy/unk",
      "cm/big",
      "--ignore-not-found",
      "-o",
      "name",
    ]);
    return { ok: found.code === 0 && found.stdout.trim() === "", detail: `exit ${found.code}: ${found.stdout}${found.stderr}` };
  });
  return checks;
}
