// JSON Schema of config.yaml: every key, its type, bounds and description. The validator is
// compiled ahead of time (schema.generated.ts, `npx tsx scripts/schemas.mjs`); the reference table
// in docs/configuration.md is made from the descriptions (test/schema-doc.test.ts keeps it so).
// Checks a schema cannot say (a URL's parts, a directory that exists, sizes like 4MiB, header
// names that would carry a credential) are in config.ts, after this.
import { DEFAULT_CONTEXT_WINDOW, MIN_CONTEXT_WINDOW } from "@palisade/agent/settings";

/** The model asked when config.yaml and PALISADE_MODEL name none. */
export const DEFAULT_MODEL = "gpt-4o-mini";

const str = (description: string) => ({ type: "string", description }) as const;
const bool = (description: string, dflt: boolean) => ({ type: "boolean", description, default: dflt }) as const;
/** A duration in seconds (fractions allowed); `min` seconds at least. */
const seconds = (description: string, dflt: number | string, min = 0) =>
  ({ type: "number", minimum: min, description, default: dflt }) as const;
const count = (description: string, dflt: number, min = 0) =>
  ({ type: "integer", minimum: min, description, default: dflt }) as const;
const size = (description: string, message: string) =>
  ({ type: ["string", "number"], description, "x-message": message }) as const;
const paths = (description: string) =>
  ({
    type: "array",
    items: { type: "string", minLength: 1, "x-message": "must be a path" },
    description,
    "x-message": "must be a list of paths",
  }) as const;
const section = <P extends Record<string, object>>(description: string, properties: P) =>
  ({ type: "object", additionalProperties: false, description, properties }) as const;

const model = section("The model: where it is, its name, and the settings that shape requests.", {
  base_url: {
    type: "string",
    pattern: "^https?://",
    description: "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1 (env OPENAI_BASE_URL wins).",
    "x-message": "must start with http:// or https://",
  },
  api_key: str("API key; only the Engine's model gateway holds it (env OPENAI_API_KEY wins)."),
  name: { ...str("Model name (env PALISADE_MODEL wins)."), default: DEFAULT_MODEL },
  context_window: count(
    "Tokens of the server's real window; the Agent compacts history at 70 %.",
    DEFAULT_CONTEXT_WINDOW,
    MIN_CONTEXT_WINDOW,
  ),
  headers: {
    type: "object",
    additionalProperties: { type: ["string", "number"], "x-message": "must be a string" },
    description: "Extra HTTP headers on every model request (never credentials: those go in api_key).",
    "x-message": "must be a mapping of header names to values",
  },
  extra_body: {
    type: "object",
    description:
      "Merged into every request body, e.g. options: {num_ctx: 32768} (model, messages, stream, tools are Palisade's).",
    "x-message": "must be a mapping (e.g. options: {num_ctx: 32768})",
  },
  idle_timeout_s: seconds("A stream that sends nothing (not even an SSE comment) this long is cut.", 60, 1),
  request_timeout_s: seconds("No response headers this long: the turn ends (not retried).", 300, 1),
  max_retries: count("Retries after 429, 5xx, network errors and error events before any output.", 3),
  max_retry_wait_s: seconds("The longest Retry-After honoured; a longer one ends the turn at once.", 120),
  text_tool_calls: {
    enum: ["auto", "off", true, false],
    description:
      "auto: recognize tool calls written as text (<tool_call>{…}</tool_call>, bare JSON); off: only structured ones.",
    default: "off",
    "x-message": "must be auto, off (or true/false)",
  },
  stream_usage: {
    enum: ["auto", "on", "off", true, false],
    description: "stream_options.include_usage: auto (dropped if the server rejects it), on, off.",
    default: "auto",
    "x-message": "must be auto, on, off (or true/false)",
  },
});

const shield = section("The Shield: which policy judges tool calls, and the optional LLM judge.", {
  policy: { ...str("A shipped policy: default, strict or permissive."), default: "default" },
  policy_file: str("A policy YAML file (relative to this file); wins over policy."),
  llm_judge: section("Tier 2: a model asked about calls the rules leave open.", {
    enabled: bool("Ask the judge.", false),
    model: str("Its model (default: model.name)."),
    base_url: str("Its endpoint (default: model.base_url)."),
    api_key: str("Its key (default: model.api_key)."),
  }),
});

const capabilities = {
  type: "array",
  description:
    "Capabilities added to, changed from or removed from the built-ins, by id (see docs/capabilities.md for an entry's keys).",
  "x-message": "must be a list of capability entries",
  items: {
    type: "object",
    required: ["id"],
    "x-message": "must be a mapping with at least an id",
    properties: {
      id: {
        type: "string",
        pattern: "^[a-z][a-z0-9_-]*$",
        description: "The capability's id: a built-in's to change or remove it, a new one to add one.",
        "x-message": "must be a lowercase identifier like files or my-tool",
      },
      enabled: { type: "boolean", description: "false removes the capability (a built-in too)." },
    },
  },
} as const;

const limits = section("Time limits and budgets.", {
  approval_timeout_s: seconds("An approval not answered in this time is denied.", 300),
  agent_restart_budget: count(
    "Agent crashes tolerated per agent_restart_window_s; then the Engine stops respawning.",
    5,
  ),
  agent_restart_window_s: seconds("The window of agent_restart_budget.", 60),
  agent_ready_timeout_s: seconds("How long a started Agent may take to connect and be ready.", 15),
  tool_timeout_s: seconds("A tool call's time limit (stopped while an MCP server's form waits for you).", 120),
  max_tool_rounds: count("Rounds of tool calls in one turn.", 25, 1),
  shutdown_deadline_s: seconds("How long a stopping Engine waits for its work and processes to end.", 10),
  sub_agents: section("Sub-agents.", {
    max_concurrent: count("Sub-agents running at once.", 10),
    max_llm_calls: count("Model calls of one sub-agent.", 20, 1),
    timeout_s: seconds("Longest run of one sub-agent.", 900),
    max_depth: count("Nesting (1: sub-agents cannot spawn their own).", 1, 1),
  }),
  client_max_message: size(
    "Largest ClientService request, 1MiB to 16MiB (default 1MiB).",
    "must be a size from 1MiB to 16MiB (the transport's limit), like 4MiB",
  ),
  capability_idle_stop_s: seconds(
    "A local capability process (command, stdio MCP) without calls this long is stopped; its next call starts it (0: all start with the Engine and keep running).",
    600,
  ),
  capability_start_timeout_s: seconds(
    "A capability's start (health check; an MCP server's handshake and tools/list) taking longer fails that attempt.",
    30,
  ),
  agent_idle_stop_s: seconds(
    "The Agent process without turns this long is stopped; the next message starts it (0: never).",
    600,
  ),
});

const listen = section("Where the Engine listens (one of them; default unix:<data dir>/engine.sock).", {
  unix: str("A unix socket path (relative to this file)."),
  tcp: str("Loopback only: 127.0.0.1:<port> or [::1]:<port>; clients need <data dir>/engine.token."),
});

const agent = section("The Agent process.", {
  name: { ...str("The assistant's name in its system prompt."), default: "Palisade" },
  allow_unsandboxed: bool(
    "Accept an Agent (or sub-agent) whose sandbox probes failed or that has a network; risky.",
    false,
  ),
});

const subAgents = section("Sub-agents and grants.", {
  inherit_grants: bool(
    'An "allow for this session" given to an agent also covers its sub-agents\' calls of that action class.',
    false,
  ),
});

const history = section("Session history.", {
  auto_title: bool("Name new sessions with a small model call (else: the first message).", true),
  retention: section("Deleting old history: off unless one of the limits is set.", {
    max_age_days: {
      type: "number",
      minimum: 1,
      description: "Delete sessions not used for this many days.",
    },
    max_bytes: size(
      "Then the least recently used sessions until the database fits (e.g. 2GB; >= 1MiB).",
      "must be a size like 500MB, 2GB or a number of bytes >= 1048576",
    ),
    check_interval_s: seconds("Retention runs at start, then this often.", 3600, 1),
  }),
});

const store = {
  ...section("History in PostgreSQL instead of the data directory's SQLite file (never a password here).", {
    url: {
      type: "string",
      description: "postgres://USER@HOST:PORT/DATABASE (or ?host=/socket/dir), without a password.",
      "x-required": "is required: postgres://USER@HOST:PORT/DATABASE (remove store: to keep the history in SQLite)",
    },
    password_file: str("A file (0600) holding the password (else PGPASSWORD or ~/.pgpass)."),
    tls: section("TLS to the server.", {
      mode: { enum: ["disable", "require", "verify-full"], description: "disable, require or verify-full." },
      ca_file: str("CA certificate (PEM)."),
      cert_file: str("Client certificate (PEM)."),
      key_file: str("Its key (PEM)."),
    }),
    pool: count("Connections in the pool.", 10, 1),
    lease_s: seconds("How long a session stays this Engine's after its last heartbeat.", 15, 1),
    engine_id: str("This Engine's name in leases and status (default host:pid)."),
  }),
  required: ["url"],
} as const;

const sandbox = section("Tool sandboxes (bubblewrap).", {
  required: bool("Refuse filesystem: workspace capabilities when no sandbox can be made.", true),
  hide: paths("Paths covered inside a bound one, never visible (~ is the home)."),
  read_only: paths("Paths added read-only to every capability's and MCP server's sandbox."),
  writable: paths("Paths added read-write to every capability's and MCP server's sandbox."),
  allow_addresses: {
    type: "array",
    items: { type: "string", minLength: 1, "x-message": "must be an IP address" },
    description: "Private addresses the egress proxy may dial anyway (e.g. an internal mirror).",
    "x-message": "must be a list of IP addresses",
  },
});

export const configSchema = {
  ...section("config.yaml", {
    model,
    shield,
    capabilities,
    limits,
    listen,
    agent,
    sub_agents: subAgents,
    workspace: str(
      "Default workspace of new sessions (default: the Engine's working directory; relative to this file).",
    ),
    history,
    store,
    sandbox,
  }),
  "x-message": "must be a mapping",
} as const;
