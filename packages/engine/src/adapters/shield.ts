// EngineShield over @palisade/shield. Until that package lands: manifest policies only.
import type { EngineConfig } from "../config.js";
import type { EngineShield } from "../ports.js";
import { PolicyShield } from "./policy-shield.js";

export async function createEngineShield(_config: EngineConfig, _dataDir: string): Promise<EngineShield> {
  return new PolicyShield();
}
