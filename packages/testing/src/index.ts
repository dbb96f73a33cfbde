export { startScriptedServer, startScriptedServer as start } from "./server.js";
export type { RecordedRequest, ScriptedServer, ScriptedServerOptions } from "./server.js";
export { messageText, reply, ruleMatches } from "./script.js";
export type {
  ChatMessage,
  ChatRequest,
  ErrorStyle,
  RuleMatch,
  ScriptRule,
  ScriptedReply,
  ScriptedToolCall,
  ServerRefusals,
  StreamQuirks,
  TextMatcher,
} from "./script.js";
export { splitWords, streamChunks, styledErrorBody, toolCallText } from "./wire.js";
export { echoReply, scriptFromJson } from "./script-file.js";
export type { ScriptFile } from "./script-file.js";
export { delay, isAlive, makeTempDir, waitFor } from "./helpers.js";
export type { TempDir, WaitForOptions } from "./helpers.js";
