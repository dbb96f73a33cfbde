// The command groups about tools and records: shield, capability, audit.
import { lazy } from "./spec.js";
import type { CommandSpec, OptionSpec } from "./spec.js";

const json: OptionSpec = { type: "boolean", description: "print JSON for scripts" };
const policy: OptionSpec = {
  type: "string",
  valueName: "NAME|FILE",
  description: "policy to judge with: default, strict, permissive or a YAML file",
  default: "the configured one (shield.policy_file, else shield.policy; 'default' without a config)",
};
const judgeModel: OptionSpec = {
  type: "string",
  valueName: "MODEL",
  description:
    "also ask this model as the tier-2 judge (needs OPENAI_BASE_URL/OPENAI_API_KEY and PALISADE_SHIELD_CANARY)",
  default: "no LLM judge",
};
const user: OptionSpec = {
  type: "string",
  valueName: "ID",
  description: "whose credential",
  default: "local (the user the Engine calls tools as)",
};
const address: OptionSpec = {
  type: "string",
  valueName: "ADDR",
  description: "reach the capability server at ADDR (host:port or unix:/path)",
  default: "none",
};
const command: OptionSpec = {
  type: "string",
  valueName: '"CMD ARGS"',
  description: "start the capability server with this command",
  default: "none",
};
const protocol: OptionSpec = {
  type: "string",
  valueName: "palisade|selu",
  description:
    "with --command: how the server is reached (palisade: unix socket + per-launch secret; selu: loopback TCP PORT)",
  default: "selu",
};

export const SHIELD: CommandSpec = {
  name: "shield",
  summary: "check actions against the Shield, evaluate it over a corpus, lint policies",
  subcommands: [
    {
      name: "check",
      summary: "judge one action (tool + JSON arguments) and print the verdict and the policy that decided",
      description: "Exit code: 0 allow, 2 block, 3 escalate (ask a human).",
      options: {
        tool: { type: "string", valueName: "NAME", description: "tool name, e.g. shell__execute_command (required)" },
        args: {
          type: "string",
          valueName: "JSON",
          description: "the tool's arguments as a JSON object",
          default: "{}",
        },
        context: {
          type: "string",
          valueName: "JSON",
          description: 'context, e.g. {"mode":"otr","workspace":"/w","sub_agent":"r1"}',
          default: "{} (normal session in --workspace)",
        },
        policy,
        "judge-model": judgeModel,
        json,
      },
      examples: [`palisade shield check --tool shell__execute_command --args '{"command":"rm -rf ~"}'`],
      run: lazy(() => import("../commands/shield.js"), "shieldCheck"),
    },
    {
      name: "eval",
      summary: "judge every case of a JSONL corpus: one verdict line per case, a summary and confusion table on stderr",
      description:
        "Or a case set shipped with the Shield (--set): its per-category table, or the whole report with --json.",
      positionals: [
        {
          name: "file",
          description: "JSONL file of cases ({id, tool, args, context?, label?, category?}); - reads stdin",
        },
      ],
      options: {
        set: {
          type: "string",
          valueName: "NAME",
          description: "a shipped case set instead of FILE: first, holdout or second",
          default: "none (FILE is required)",
        },
        policy,
        "judge-model": judgeModel,
        json: { type: "boolean", description: "with --set: the report as one JSON object" },
      },
      run: lazy(() => import("../commands/shield.js"), "shieldEval"),
    },
    {
      name: "policy",
      summary: "work with policy files",
      subcommands: [
        {
          name: "lint",
          summary: "validate a policy file and report every problem with its line",
          positionals: [{ name: "file", description: "policy YAML file", required: true }],
          run: lazy(() => import("../commands/shield.js"), "shieldPolicyLint"),
        },
      ],
    },
  ],
};

export const CAPABILITY: CommandSpec = {
  name: "capability",
  summary: "list, check and call capabilities; manage their credentials",
  subcommands: [
    {
      name: "list",
      summary: "every configured capability (built-ins included): launch mode, health, tools and each tool's policy",
      description:
        "With an Engine running, starts nothing: health and MCP servers' tools are the Engine's. Without one, starts the\ncapabilities as the Engine would (same config, sandbox and credentials), in parallel, and stops them again; given\nids, only those. --static starts nothing: manifest tools, policies and sandbox views only.",
      positionals: [{ name: "id", description: "list (and start) only these capabilities", rest: true }],
      options: {
        json,
        verbose: {
          type: "boolean",
          description: "also print each sandbox's view: every path it shows and how (docs/security.md)",
        },
        static: {
          type: "boolean",
          description: "start nothing: no health, applied limits or MCP tools (those come from a running server)",
        },
      },
      run: lazy(() => import("../commands/capability-list.js"), "capabilityList"),
    },
    {
      name: "check",
      summary:
        "validate capability manifests (every problem, with paths); health-check a server with --address or --command",
      description:
        "An MCP server of the config is named by its id: it is started in the Engine's sandbox and its name,\nversion, capabilities and tools are reported.",
      positionals: [
        {
          name: "manifest",
          description: "manifest file(s), directories containing manifest.yaml, or ids of MCP servers in the config",
          required: true,
          rest: true,
        },
      ],
      options: { address, command, protocol, json },
      run: lazy(() => import("../commands/capability-check.js"), "capabilityCheck"),
    },
    {
      name: "call",
      summary: "call one tool through the Engine's host, Shield and artifact store",
      description:
        "A configured tool:   palisade capability call <capability>__<tool> [ARGS_JSON | --args JSON]\n" +
        "                 or: palisade capability call <capability> <tool> [ARGS_JSON]   (MCP servers too)\n" +
        'Any Selu server:     palisade capability call MANIFEST TOOL [ARGS_JSON] --address ADDR | --command "CMD ARGS"\n' +
        "The Shield judges the call first: block exits 2; an escalation is asked in a terminal, approved with --yes,\n" +
        "else not run (exit 3). Artifacts the tool returns are saved with --out DIR.",
      positionals: [
        {
          name: "target",
          description: "<capability>__<tool>, a capability id, or a manifest path with --address/--command",
          required: true,
        },
        { name: "args-or-tool", description: "ARGS_JSON, or the TOOL name after a capability id or manifest" },
        { name: "args", description: "ARGS_JSON after <capability> <tool> or MANIFEST TOOL" },
      ],
      options: {
        args: {
          type: "string",
          valueName: "JSON",
          description: "the tool's arguments (instead of ARGS_JSON)",
          default: "{}",
        },
        session: {
          type: "string",
          valueName: "ID",
          description: "session the call (and its artifacts) belongs to",
          default: "cli",
        },
        out: {
          type: "string",
          valueName: "DIR",
          description: "save the artifacts the tool returns into DIR",
          default: "not saved; their ids are printed",
        },
        timeout: {
          type: "string",
          valueName: "MS",
          description: "give up after MS milliseconds",
          default: "the capability's configured timeout",
        },
        yes: { type: "boolean", short: "y", description: "approve the call if the Shield asks for approval" },
        address,
        command,
        protocol,
        json,
      },
      examples: [
        `palisade capability call files__list_directory '{"path":"."}'`,
        `palisade capability call caps/pdf/manifest.yaml render '{"title":"Hi"}' --address 127.0.0.1:50051 --out ./out`,
      ],
      run: lazy(() => import("../commands/capability-call.js"), "capabilityCall"),
    },
    {
      name: "login",
      summary:
        "sign in to an HTTP MCP server with OAuth (prints the sign-in URL; the tokens go to the credential store)",
      description:
        "Follows the server's 401 to its authorization server (metadata discovery, registration, PKCE), prints the\nsign-in URL and waits for the browser's redirect to a listener on 127.0.0.1. Run it again when the Engine says\nthe server needs you to log in (no token, or the grant was revoked). A server configured with\noauth.grant: client_credentials has no sign-in: the Engine gets its token with the stored client secret or key.",
      positionals: [{ name: "id", description: "id of an MCP server (mcp: { url: … }) in the config", required: true }],
      examples: ["palisade capability login linear"],
      run: lazy(() => import("../commands/capability-login.js"), "capabilityLogin"),
    },
    {
      name: "credentials",
      summary: "store, list and delete the per-user credentials capabilities declare",
      subcommands: [
        {
          name: "set",
          summary: "store a credential; the value is read from stdin, or typed without echo in a terminal",
          positionals: [
            { name: "capability", description: "capability id, e.g. mail", required: true },
            { name: "name", description: "credential name the manifest declares, e.g. APP_PASSWORD", required: true },
          ],
          options: { user },
          examples: [
            `printf %s "$TOKEN" | palisade capability credentials set github GITHUB_TOKEN`,
            "palisade capability credentials set mail APP_PASSWORD",
          ],
          run: lazy(() => import("../commands/credentials.js"), "credentialsSet"),
        },
        {
          name: "list",
          summary: "list stored credential names (never their values)",
          options: { user },
          run: lazy(() => import("../commands/credentials.js"), "credentialsList"),
        },
        {
          name: "delete",
          summary: "delete a stored credential",
          positionals: [
            { name: "capability", description: "capability id", required: true },
            { name: "name", description: "credential name", required: true },
          ],
          options: { user },
          run: lazy(() => import("../commands/credentials.js"), "credentialsDelete"),
        },
      ],
    },
  ],
};

export const ARTIFACTS: CommandSpec = {
  name: "artifacts",
  summary: "list and save the files tools produced (PDFs, images, ...)",
  subcommands: [
    {
      name: "list",
      summary: "list artifacts, newest first",
      options: {
        session: {
          type: "string",
          valueName: "ID",
          description: "only this session (id or unique prefix)",
          default: "every stored session",
        },
        json,
      },
      run: lazy(() => import("../commands/artifacts.js"), "artifactsList"),
    },
    {
      name: "save",
      summary: "save an artifact into a directory under its own file name (never overwriting)",
      positionals: [{ name: "id", description: "artifact id (art_…) or unique prefix", required: true }],
      options: {
        out: {
          type: "string",
          valueName: "DIR",
          description: "directory to save into (created if needed)",
          default: "the current directory",
        },
        session: {
          type: "string",
          valueName: "ID",
          description: "the session it belongs to",
          default: "found among the stored sessions",
        },
      },
      examples: ["palisade artifacts save art_2137 --out ~/Downloads"],
      run: lazy(() => import("../commands/artifacts.js"), "artifactsSave"),
    },
  ],
};

export const STORE: CommandSpec = {
  name: "store",
  summary: "move the history between stores",
  subcommands: [
    {
      name: "copy",
      summary: "copy a SQLite history into an empty PostgreSQL database, then check counts and the audit chain",
      description:
        "The password comes from PGPASSWORD, 'palisade store password set' or ~/.pgpass, never from the URL.\n" +
        "The target must be empty.\n" +
        "The audit key beside the config (audit.key) keys both chains: give every Engine the same file.",
      options: {
        from: {
          type: "string",
          valueName: "sqlite:PATH",
          description: "the SQLite history to copy",
          default: "the data directory's palisade.db",
        },
        to: { type: "string", valueName: "URL", description: "postgres://USER@HOST:PORT/DATABASE (an empty database)" },
        json,
      },
      examples: [
        "PGPASSWORD=… palisade store copy --to postgres://palisade@db.example/palisade",
        "palisade store copy --from sqlite:/srv/old/palisade.db --to postgres://palisade@/palisade?host=/run/postgresql",
      ],
      run: lazy(() => import("../commands/store.js"), "storeCopy"),
    },
    {
      name: "password",
      summary: "keep the PostgreSQL password of store.url in the data directory's credential store",
      subcommands: [
        {
          name: "set",
          summary: "store it; read from stdin, or typed without echo in a terminal",
          description:
            "Kept in <data dir>/credentials.json (0600), never in the config file. The Engine reads it at start\n" +
            "(PGPASSWORD, when set, comes first); the Agent and the capabilities never see it.",
          examples: [`printf %s "$PASSWORD" | palisade store password set`, "palisade store password set"],
          run: lazy(() => import("../commands/store.js"), "storePasswordSet"),
        },
        {
          name: "delete",
          summary: "remove it from the credential store",
          run: lazy(() => import("../commands/store.js"), "storePasswordDelete"),
        },
      ],
    },
  ],
};

export const AUDIT: CommandSpec = {
  name: "audit",
  summary: "work with the hash-chained audit trail",
  subcommands: [
    {
      name: "verify",
      summary: "verify the audit chain: OK with the entry count, or the first broken entry (exit 1)",
      options: { json },
      run: lazy(() => import("../commands/audit.js"), "auditVerify"),
    },
  ],
};
