/** Slash commands of the chat: names, help, completion. */

export interface SlashCommand {
  name: string;
  args: string;
  help: string;
}

export const SLASH_COMMANDS: SlashCommand[] = [
  { name: "help", args: "", help: "show commands and keys" },
  { name: "new", args: "", help: "start a new session" },
  { name: "otr", args: "", help: "start an off-the-record session (nothing stored); again to leave" },
  {
    name: "sessions",
    args: "",
    help: "browse stored sessions; type to search them (Enter opens the transcript at the hit, r resumes)",
  },
  { name: "resume", args: "<id-prefix>", help: "continue a stored session" },
  { name: "search", args: "<query>", help: "search all sessions; Enter opens the transcript at the hit" },
  { name: "model", args: "[name]", help: "show the model, or use another one for the next messages" },
  { name: "models", args: "", help: "list the models the model endpoint offers" },
  { name: "status", args: "", help: "Engine, Shield, capabilities and their health" },
  { name: "tools", args: "", help: "tools the agent can use and what the active policy decides for them" },
  { name: "agents", args: "", help: "sub-agents of this session and their transcripts" },
  { name: "export", args: "[md|json] [file]", help: "export this session to a file" },
  {
    name: "save",
    args: "[artifact-id] [dir]",
    help: "save this session's newest artifact (or the one named) into dir (default: the current directory)",
  },
  { name: "delete", args: "", help: "delete this session (asks first)" },
  { name: "clear", args: "", help: "clear the screen (the session continues)" },
  { name: "restart", args: "", help: "restart the Engine with this chat's config and environment (sessions are kept)" },
  { name: "quit", args: "", help: "leave the chat (the Engine keeps running)" },
];

export const KEY_HELP: [string, string][] = [
  ["Enter", "send"],
  ["\\ + Enter, Alt+Enter", "new line"],
  ["↑ / ↓", "move between lines, then through history"],
  ["Tab", "complete a slash command"],
  ["Esc", "cancel the running turn"],
  ["Ctrl+C", "cancel / clear; twice to exit"],
  ["Ctrl+O", "inspect tool calls (full arguments and results)"],
  ["Ctrl+R", "search the prompts you sent before (Ctrl+R again: older)"],
  ["y / a / n / r", "approval: allow once / allow for this session / deny / deny with a reason"],
  ["↑↓ Space ←→ Enter Esc", "an MCP server's form: move / choose / next field or press the button / cancel it"],
];

export interface ParsedSlash {
  name: string;
  args: string[];
  rest: string;
}

export function parseSlash(text: string): ParsedSlash | undefined {
  const t = text.trim();
  if (!t.startsWith("/") || t.startsWith("//")) return undefined;
  const [head = "", ...args] = t.slice(1).split(/\s+/);
  return { name: head.toLowerCase(), args: args.filter(Boolean), rest: t.slice(1 + head.length).trim() };
}

function commonPrefix(words: string[]): string {
  if (words.length === 0) return "";
  let p = words[0] ?? "";
  for (const w of words) while (!w.startsWith(p)) p = p.slice(0, -1);
  return p;
}

/**
 * Tab completion of the command word. Returns the new text and, when several commands match,
 * the candidates to show.
 */
export function completeSlash(text: string): { text: string; candidates: string[] } {
  if (!text.startsWith("/") || /\s/.test(text)) return { text, candidates: [] };
  const typed = text.slice(1).toLowerCase();
  const matches = SLASH_COMMANDS.map((c) => c.name).filter((n) => n.startsWith(typed));
  if (matches.length === 0) return { text, candidates: [] };
  if (matches.length === 1) return { text: `/${matches[0] ?? ""} `, candidates: [] };
  const prefix = commonPrefix(matches);
  return { text: `/${prefix.length > typed.length ? prefix : typed}`, candidates: matches };
}

export function unknownCommandMessage(name: string): string {
  return `unknown command /${name}; commands: ${SLASH_COMMANDS.map((c) => `/${c.name}`).join(" ")}`;
}
