export { SUBAGENT_ENV, SubAgentConfigError, readSubAgentConfig } from "./config.js";
export type { SubAgentConfig } from "./config.js";
export { Conversation, withInjected } from "./conversation.js";
export type { ChatMessage, Injection, Poll, PollResult } from "./conversation.js";
export { DEFAULT_MAX_LLM_CALLS, runSubAgent } from "./run.js";
export type { RunSubAgentOptions, SubAgentExit } from "./run.js";
export { subAgentLaunchSpec, subAgentPackageDir } from "./launch.js";
export { toContextMessages } from "./transcript.js";
