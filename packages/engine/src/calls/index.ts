// The one path of a tool call (see run.ts), for turns, sub-agents and direct calls of clients.
export { runToolCall } from "./run.js";
export { emitFor } from "./scope.js";
export type { CallEnv, CallEventInit, CallScope, ToolCall, ToolResult } from "./scope.js";
