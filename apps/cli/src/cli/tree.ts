import { lazy } from "./spec.js";
import type { CommandSpec } from "./spec.js";
import { ARTIFACTS, AUDIT, CAPABILITY, SHIELD, STORE } from "./tree-tools.js";

const json = { type: "boolean", description: "print JSON for scripts instead of a table" } as const;

export const COMMAND_TREE: CommandSpec = {
  name: "palisade",
  summary: "Palisade: an agent runtime where the process that talks to the LLM can do nothing by itself.",
  subcommands: [
    {
      name: "chat",
      summary: "open the chat (connects to the Engine, starting it in the background if needed)",
      description:
        "Type a message and press Enter. '\\' at the end of a line, Alt+Enter or Ctrl+J insert a newline.\n" +
        "Esc cancels the running turn; Ctrl+C clears the input, twice exits. /help lists the slash commands.",
      options: {
        demo: {
          type: "boolean",
          description: "offline demo: the real Engine with a scripted model (says so on screen)",
        },
        ephemeral: { type: "boolean", description: "stop the Engine this chat started when the chat exits" },
        otr: { type: "boolean", description: "start off the record: nothing of the session is stored" },
        resume: {
          type: "boolean",
          description: "continue a stored session: the one given as SESSION, else pick it from the list",
        },
        model: {
          type: "string",
          valueName: "NAME",
          description:
            "the model for this chat's messages (as /model NAME); refused when the endpoint lists its models and not this one",
          default: "the Engine's model",
        },
      },
      positionals: [{ name: "session", description: "with --resume: a session id or unique prefix" }],
      examples: [
        "palisade chat",
        "palisade chat --demo",
        "palisade chat --resume",
        "palisade chat --resume 3f2a --model qwen3:8b",
        "palisade --data-dir /tmp/p chat --ephemeral",
      ],
      run: lazy(() => import("../commands/chat.js"), "runChatCommand"),
    },
    {
      name: "run",
      summary: "send one prompt, stream the answer and tool calls, exit",
      description:
        "The prompt is the arguments; '-' or no prompt with stdin not a terminal reads it from stdin.\n" +
        "In a terminal, approvals are asked as y (once) / a (this session) / n (deny). Without one, a call the\n" +
        "Shield escalates runs only if --approve matches it; otherwise it is not run and reported as\n" +
        "'no one could approve (no terminal)'. Exit code 0 on success; the session id is printed either way.",
      positionals: [{ name: "prompt", description: "the message to send (quote it); - reads stdin", rest: true }],
      options: {
        session: {
          type: "string",
          valueName: "ID",
          description: "continue this session (id or unique prefix)",
          default: "a new session",
        },
        approve: {
          type: "string",
          valueName: "TOOL_GLOB",
          multiple: true,
          description: "approve escalated calls of matching tools once each, e.g. 'files__*' or shell__execute_command",
          default: "none: ask in a terminal, else do not run",
        },
        otr: { type: "boolean", description: "off the record: nothing is stored" },
        json: { type: "boolean", description: "print one JSON event per line" },
      },
      examples: [
        'palisade run "summarize README.md"',
        "git diff | palisade run --approve 'files__*' -",
        'palisade run --json "list the files" | jq .type',
      ],
      run: lazy(() => import("../commands/run-command.js"), "runRunCommand"),
    },
    {
      name: "engine",
      summary: "start, stop, restart or inspect the Engine",
      subcommands: [
        {
          name: "start",
          summary: "start the Engine (in the background unless --foreground)",
          options: {
            foreground: { type: "boolean", description: "run in this terminal until Ctrl+C or SIGTERM" },
            demo: { type: "boolean", description: "use the scripted demo model instead of a real LLM" },
          },
          run: lazy(() => import("../commands/engine.js"), "engineStart"),
        },
        {
          name: "stop",
          summary: "ask the running Engine to shut down gracefully",
          run: lazy(() => import("../commands/engine.js"), "engineStop"),
        },
        {
          name: "restart",
          summary: "stop the running Engine gracefully and start it with the current config and environment",
          description:
            "Use it after exporting another model, base URL or key, or editing the config file: clients say when the\n" +
            "running Engine started with a different setup. The config is checked first; an invalid one leaves the\n" +
            "running Engine alone. Running turns get --deadline seconds to finish, then are cancelled and saved as far\n" +
            "as they got; sessions and history are kept. Starts an Engine when none runs.",
          options: {
            deadline: {
              type: "string",
              valueName: "SECONDS",
              description: "how long running turns may take to finish before they are cancelled",
              default: "10",
            },
            demo: {
              type: "boolean",
              description: "start it with the scripted demo model (kept anyway when the running one is a demo)",
            },
          },
          examples: ["palisade engine restart", "PALISADE_MODEL=llama3.1 palisade engine restart"],
          run: lazy(() => import("../commands/engine.js"), "engineRestart"),
        },
        {
          name: "status",
          summary: "show the Engine, model, Shield and capability health",
          options: { json },
          run: lazy(() => import("../commands/engine.js"), "engineStatus"),
        },
      ],
    },
    {
      name: "sessions",
      summary: "list, show, search, export, rename and delete stored sessions",
      subcommands: [
        {
          name: "list",
          summary: "list sessions, most recent first",
          options: {
            limit: { type: "string", valueName: "N", description: "how many", default: "20" },
            offset: { type: "string", valueName: "N", description: "skip this many", default: "0" },
            filter: {
              type: "string",
              valueName: "TEXT",
              description: "only titles containing TEXT",
              default: "all sessions",
            },
            json,
          },
          run: lazy(() => import("../commands/sessions.js"), "sessionsList"),
        },
        {
          name: "show",
          summary: "print a session's transcript with its tool calls",
          positionals: [{ name: "id", description: "session id or unique prefix", required: true }],
          options: { json },
          run: lazy(() => import("../commands/sessions.js"), "sessionsShow"),
        },
        {
          name: "search",
          summary: "full-text search over messages and tool calls",
          positionals: [{ name: "query", description: "search terms", required: true, rest: true }],
          options: {
            limit: { type: "string", valueName: "N", description: "how many hits", default: "20" },
            session: { type: "string", valueName: "ID", description: "only this session", default: "every session" },
            json,
          },
          run: lazy(() => import("../commands/sessions.js"), "sessionsSearch"),
        },
        {
          name: "export",
          summary: "export a session as Markdown or JSON",
          positionals: [{ name: "id", description: "session id or unique prefix", required: true }],
          options: {
            format: { type: "string", valueName: "md|json", description: "output format", default: "md" },
            out: {
              type: "string",
              valueName: "FILE",
              description: "write to FILE instead of stdout (never over an existing file without --force)",
              default: "stdout",
            },
            force: { type: "boolean", description: "overwrite the --out file if it exists" },
          },
          run: lazy(() => import("../commands/sessions.js"), "sessionsExport"),
        },
        {
          name: "rename",
          summary: "give a session a new title",
          positionals: [
            { name: "id", description: "session id or unique prefix", required: true },
            { name: "title", description: "the new title", required: true, rest: true },
          ],
          run: lazy(() => import("../commands/sessions.js"), "sessionsRename"),
        },
        {
          name: "delete",
          summary: "delete a session with its messages and artifacts",
          positionals: [{ name: "id", description: "session id or unique prefix", required: true }],
          options: { yes: { type: "boolean", short: "y", description: "do not ask for confirmation" } },
          run: lazy(() => import("../commands/sessions.js"), "sessionsDelete"),
        },
      ],
    },
    SHIELD,
    CAPABILITY,
    ARTIFACTS,
    AUDIT,
    STORE,
  ],
};
