// Child process of bench/footprint.mjs: an Engine with its default configuration (every built-in
// capability, the real sandboxed Agent) in its own process, as `palisade engine start` runs it.
// argv: <model base URL> <idle stop in s: capability_idle_stop_s and agent_idle_stop_s>. Reports { address, token } over IPC; answers
// "memory" with its process.memoryUsage(); stops on disconnect.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEngine } from "@palisade/engine";
import { defaultConfig } from "@palisade/config";

const [baseUrl, idleStopS] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), "pal-footprint-"));
mkdirSync(join(dir, "ws"));
writeFileSync(join(dir, "ws", "x.txt"), "x\n");
const config = defaultConfig();
config.model = { ...config.model, baseUrl, apiKey: "sk-bench", name: "scripted-model" };
config.history.autoTitle = false;
config.limits.capabilityIdleStopMs = Number(idleStopS) * 1000;
config.limits.agentIdleStopMs = Number(idleStopS) * 1000;
const engine = await startEngine({
  dataDir: join(dir, "data"),
  config,
  env: {},
  auditKeyFile: join(dir, "audit.key"),
  workspace: join(dir, "ws"),
  log: () => {},
});
await engine.agentReady(30_000);
process.on("message", (m) => {
  if (m === "memory") process.send({ memory: process.memoryUsage() });
});
process.send({ address: engine.address, token: engine.bearerToken });
process.on("disconnect", () => {
  void engine.stop(2000).then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
