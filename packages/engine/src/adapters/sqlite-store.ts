// EngineStore over @palisade/store (SQLite). Until that package lands, the Engine keeps its
// history in memory (MemoryStore) so everything else can run.
import { join } from "node:path";
import type { EngineStore } from "../ports.js";
import { MemoryStore } from "./memory-store.js";

export const DATABASE_FILE = "palisade.db";

export async function openSqliteStore(dataDir: string): Promise<EngineStore> {
  void join(dataDir, DATABASE_FILE);
  return new MemoryStore();
}
