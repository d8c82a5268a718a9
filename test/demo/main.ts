// shiplog's demo: the library, the CI action and the controller against the emulator and the fake cluster,
// with an activity tail running alongside. Every piece talks real HTTP over loopback.
import { ShiplogClient } from "@shiplog/client";
import { describeRequirements, requiredPermissions } from "@shiplog/client/permissions";
import { startEmulator } from "@shiplog/emulator";
import { startFakeCluster } from "@shiplog/fake-cluster";
import { runActionStep } from "./action-step.js";
import { tailActivity } from "./activity-tail.js";
import { runClientFlow } from "./client-flow.js";
import { runControllerStep } from "./controller-step.js";
import { printTable } from "./table.js";

const emulator = await startEmulator();
const cluster = await startFakeCluster({ nodes: ["node-a", "node-b"] });
console.log(`shiplog demo\n  service emulator: ${emulator.url}\n  fake cluster:     ${cluster.url}`);

// The tail polls once a second here (the service says 60 s) so its lines show up during the demo.
emulator.state.events.setPollInterval(1);
emulator.state.notifications.setPollInterval(1);
const tailStop = new AbortController();
const tail = tailActivity({
  feedClient: new ShiplogClient({ baseUrl: emulator.url, token: emulator.tokens.admin }),
  notificationsClient: new ShiplogClient({
    baseUrl: emulator.url,
    token: emulator.tokens.classic,
    tokenInfo: { type: "classic", scopes: ["repo", "notifications"] },
  }),
  org: "acme",
  signal: tailStop.signal,
  print: (line) => console.log(`    ${line}`),
});

try {
  console.log("\n== 1. The library: storage and deployment records through @shiplog/client");
  await runClientFlow(emulator);

  console.log("\n== 2. The CI action: an annotated tag and storage records (node packages/action/dist/index.js)");
  emulator.activity.push({ actor: "octo", repo: "acme/web" });
  const run = await runActionStep(emulator.url, emulator.tokens.admin!);
  console.log(`action: exit ${run.exitCode}, tag ${run.outputs["tag-ref"]} -> ${run.outputs["tag-sha"]} (${run.outputs["tag-outcome"]})`);
  printTable(
    "Storage records the action created",
    run.storageRecords.map((r) => ({
      name: r.name,
      digest: `${String(r.digest).slice(0, 19)}…`,
      registry: r.registry_url,
      status: r.status,
    })),
  );
  const rerun = await runActionStep(emulator.url, emulator.tokens.admin!);
  console.log(`action re-run: exit ${rerun.exitCode}, tag ${rerun.outputs["tag-outcome"]} (same object and message)`);

  console.log("\n== 3. The controller: deployment records follow the cluster");
  const issue = emulator.activity.openIssue({ actor: "hubot", repo: "acme/web", title: "Record the payments API rollout" });
  emulator.activity.mention({ actor: "hubot", repo: "acme/web", issue: issue.number, user: "octo" });
  await runControllerStep(emulator, cluster);

  console.log("\n== 4. The permission matrix: what does a call need?");
  const calls: [string, string][] = [
    ["POST", "/orgs/acme/artifacts/metadata/deployment-record/cluster/demo-eu-1"],
    ["POST", "/repos/acme/web/git/tags"],
    ["GET", "/notifications"],
    ["PUT", "/repos/acme/web/import"],
    ["GET", "/repos/acme/web/issues/events/42"],
  ];
  printTable(
    "requiredPermissions(method, path)",
    calls.map(([method, path]) => {
      const r = requiredPermissions(method, path);
      return r.covered
        ? { call: `${method} ${path}`, needs: describeRequirements(r), tokens: r.tokenKinds.join(", ") }
        : { call: `${method} ${path}`, needs: r.message, tokens: "" };
    }),
  );
  emulator.activity.closeIssue({ actor: "octo", repo: "acme/web", issue: issue.number });
  await new Promise((r) => setTimeout(r, 2500));
} finally {
  tailStop.abort();
  const counts = await tail;
  console.log(`\nactivity tail: ${counts.events} events and ${counts.threads} inbox updates printed while the demo ran`);
  await cluster.stop();
  await emulator.stop();
}
