// Fake cluster at controller-benchmark scale: 3,000 Deployments (1-3 containers, ~10,000 pods) through the bulk
// script path with a pod watch open, then full pod lists over HTTP (the fetch client runs in the same process, so
// list figures include client-side parsing). Prints figures; asserts nothing.
import { startFakeCluster } from "@shiplog/fake-cluster";

const cluster = await startFakeCluster({ nodes: ["node-1", "node-2", "node-3", "node-4"] });
const specs = Array.from({ length: 3000 }, (_, i) => ({
  namespace: `team-${i % 30}`,
  name: `svc-${i}`,
  replicas: [3, 3, 4][i % 3]! + (i % 9 === 0 ? 1 : 0) - (i % 10 === 0 ? 2 : 0),
  containers: Array.from({ length: 1 + (i % 3) }, (_, j) => ({ name: `c${j}`, image: `ghcr.io/acme/img-${(i + j) % 200}:1.${i % 7}` })),
}));
const watch = await fetch(`${cluster.url}/api/v1/pods?watch=true&resourceVersion=${cluster.store.resourceVersion()}`);
const reader = watch.body!.getReader();
let watchedBytes = 0;
void (async () => {
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    watchedBytes += value.length;
  }
})();

let t = performance.now();
await cluster.script.createDeployments(specs, { wait: false });
await cluster.settle();
const createMs = performance.now() - t;
const pods = cluster.store.count("pods");
console.log(`created ${specs.length} deployments -> ${pods} Running pods in ${createMs.toFixed(0)} ms (${((pods / createMs) * 1000).toFixed(0)} pods/s); watch stream carried ${(watchedBytes / 1e6).toFixed(1)} MB`);

for (let round = 1; round <= 3; round++) {
  t = performance.now();
  const text = await (await fetch(`${cluster.url}/api/v1/pods`)).text();
  console.log(`list ${pods} pods over HTTP, round ${round}: ${(performance.now() - t).toFixed(0)} ms, ${(text.length / 1e6).toFixed(1)} MB`);
}
t = performance.now();
await cluster.script.setImage("team-1", "svc-1", "ghcr.io/acme/img-1:2.0");
console.log(`one rollout at this scale: ${(performance.now() - t).toFixed(0)} ms`);
// 1,000 rollouts at once (what the controller benchmark does), each stepping by maxSurge/maxUnavailable.
const rolled = specs.slice(1000, 2000);
const writesBefore = cluster.store.resourceVersion();
t = performance.now();
for (const s of rolled) await cluster.script.setImage(s.namespace, s.name, Object.fromEntries(s.containers.map((c) => [c.name, c.image.replace(/:1\.(\d)$/, ":2.$1")])), { wait: false });
await cluster.settle();
const rollMs = performance.now() - t;
const rolledPods = rolled.reduce((n, s) => n + s.replicas, 0);
console.log(`${rolled.length} rollouts at once (${rolledPods} pods replaced): ${rollMs.toFixed(0)} ms (${((rolledPods / rollMs) * 1000).toFixed(0)} pods/s), ${Number(cluster.store.resourceVersion()) - Number(writesBefore)} object writes`);
console.log(`heap used: ${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`);
await reader.cancel();
await cluster.stop();
