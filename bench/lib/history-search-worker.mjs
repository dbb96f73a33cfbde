// Worker of bench/history.mjs: runs searches on its own read-only connection while the main
// thread appends, and reports the latencies it saw.
import { parentPort, workerData } from "node:worker_threads";
import { Store } from "../../packages/store/dist/index.js";

const { path, queries } = workerData;
const store = Store.open(path, { readonly: true });
const latencies = [];
let stop = false;
parentPort.on("message", (m) => {
  if (m === "stop") stop = true;
});
parentPort.postMessage("ready");
let i = 0;
while (!stop) {
  const q = queries[i++ % queries.length];
  const t = performance.now();
  store.search(q.text, q.options);
  latencies.push(performance.now() - t);
  if (i % 20 === 0) await new Promise((r) => setImmediate(r)); // let the stop message in
}
store.close();
parentPort.postMessage({ latencies });
