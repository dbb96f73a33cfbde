// The fake ClientService as an Engine process: listens on <data-dir>/engine.sock and writes
// engine.json, so the real `palisade chat` finds it. Run: node --import tsx fake-engine-main.ts <data-dir>
import { join } from "node:path";
import { removeEngineInfo, writeEngineInfo } from "@palisade/config/discovery";
import { startFakeEngine } from "./fake-engine.js";

const dataDir = process.argv[2];
if (!dataDir) throw new Error("usage: fake-engine-main.ts <data-dir>");
let stopping = false;
const stop = async (): Promise<void> => {
  if (stopping) return;
  stopping = true;
  await removeEngineInfo(dataDir);
  await running.close();
  process.exit(0);
};
const running = await startFakeEngine(`unix:${join(dataDir, "engine.sock")}`, {
  tokenDelayMs: 8,
  onShutdown: () => void stop(),
});
running.engine.seed("Trip to Lisbon", [
  { role: "user", content: "plan three days in Lisbon" },
  { role: "assistant", content: "Day 1: **Alfama** and the castle. Day 2: Belém. Day 3: Sintra." },
]);
await writeEngineInfo(dataDir, {
  pid: process.pid,
  address: running.address,
  startedAt: new Date().toISOString(),
  version: "fake",
});
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
