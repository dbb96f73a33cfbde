// Sub-agents, the Engine side: what the composition file (engine.ts) wires in.
export { SubAgentManager } from "./manager.js";
export type { SubAgentManagerOptions } from "./manager.js";
export { listSubAgentsRpc, subAgentServiceImpl } from "./service.js";
export { defaultSubAgentLauncher } from "./launcher.js";
export { MemoryRunStore, SqliteRunStore } from "./store.js";
export { AGENT_TOOLS, AGENTS_GROUP } from "./tools.js";
export { NAME_POOL, NamePool } from "./names.js";
export { DEFAULT_SUBAGENT_LIMITS } from "./ports.js";
export type { SubAgentLauncher, SubAgentLaunchRequest, SubAgentLimits } from "./ports.js";
export type { RunSummary, StoredRun, SubAgentRunStore, SubAgentState } from "../ports.js";
