export { startScriptedServer, startScriptedServer as start } from "./server.js";
export type { RecordedRequest, ScriptedServer, ScriptedServerOptions } from "./server.js";
export { messageText, reply, ruleMatches } from "./script.js";
export type { ChatMessage, ChatRequest, RuleMatch, ScriptRule, ScriptedReply, ScriptedToolCall, TextMatcher } from "./script.js";
export { splitWords, streamChunks } from "./wire.js";
export { echoReply, scriptFromJson } from "./script-file.js";
export type { ScriptFile } from "./script-file.js";
export { delay, makeTempDir, waitFor } from "./helpers.js";
export type { TempDir, WaitForOptions } from "./helpers.js";
