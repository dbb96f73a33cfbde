// Child process of bench/engine.mjs: an Engine with the real sandboxed Agent and the built-in
// capabilities, in its own process as `palisade engine start` runs it, so the benchmark's client
// does not share its event loop. argv: <model base URL> <"files-shell" | "all">: the built-in capabilities started
// (files and shell only, or all of them as a default configuration does). With BENCH_STORE_URL
// (and PGPASSWORD) the history is in that PostgreSQL database, the Engine named BENCH_ENGINE_ID,
// its audit key BENCH_AUDIT_KEY (one file for the Engines sharing a database).
// Reports { address, token, readyMs } (startEngine → Agent ready) over IPC; stops on disconnect.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEngine } from "@palisade/engine";
import { defaultConfig } from "@palisade/config";

const [baseUrl, capabilities] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), "pal-bench-"));
mkdirSync(join(dir, "ws"));
writeFileSync(join(dir, "ws", "x.txt"), "x\n");
const config = defaultConfig();
config.model = { baseUrl, apiKey: "sk-bench", name: "scripted-model", contextWindow: 128000 };
// Automatic titles are one more model call per new session, made in the background after the
// turn; the baselines make no such call, so the benchmarks leave them out.
config.history.autoTitle = false;
if (process.env.BENCH_STORE_URL)
  config.store = {
    url: process.env.BENCH_STORE_URL,
    pool: 10,
    leaseMs: 15_000,
    engineId: process.env.BENCH_ENGINE_ID ?? "bench",
  };
config.capabilities = capabilities === "all" ? [] : ["http", "documents", "mail"].map((id) => ({ id, enabled: false }));
const t = process.hrtime.bigint();
const engine = await startEngine({
  dataDir: join(dir, "data"),
  config,
  env: {},
  auditKeyFile: process.env.BENCH_AUDIT_KEY ?? join(dir, "audit.key"),
  workspace: join(dir, "ws"),
  log: () => {},
});
await engine.agentReady(30_000);
process.send({
  address: engine.address,
  token: engine.bearerToken,
  readyMs: Number(process.hrtime.bigint() - t) / 1e6,
});
process.on("disconnect", () => {
  void engine.stop(2000).then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
