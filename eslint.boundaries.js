// Import boundaries that mirror the layers: dependencies point one way (apps -> engine/agent ->
// capabilities/shield/store/sandbox -> protocol), and the process that talks to the model never
// imports what holds state, credentials or decisions. A violation fails `make lint`; the rules are
// a module of their own so test/lint/boundaries.test.ts can show each one firing.

const pkg = (names) => names.flatMap((n) => [`@palisade/${n}`, `@palisade/${n}/*`]);

/** Packages an area may not import, with the reason shown in the lint error. */
const RULES = [
  {
    files: ["packages/agent/src/**", "packages/subagent/src/**"],
    forbid: ["engine", "config", "store", "capabilities", "shield", "sandbox", "cli"],
    why: "the Agent holds no state, credentials or decisions: it speaks to the Engine over RunSession only",
  },
  {
    files: ["packages/protocol/src/**"],
    forbid: [
      "agent",
      "subagent",
      "engine",
      "config",
      "store",
      "capabilities",
      "capability-sdk",
      "shield",
      "sandbox",
      "testing",
      "cli",
    ],
    why: "protocol is the bottom layer: it imports no other Palisade package",
  },
  {
    files: ["packages/shield/src/**", "packages/store/src/**", "packages/sandbox/src/**"],
    forbid: ["agent", "subagent", "engine", "config", "capabilities", "capability-sdk", "testing", "cli"],
    why: "a lower package never imports an upper one (shield, store and sandbox sit below the Engine)",
  },
  {
    files: ["packages/capabilities/src/**"],
    forbid: ["agent", "subagent", "engine", "config", "store", "shield", "testing", "cli"],
    why: "capabilities sits below the Engine and beside the Shield and the store",
  },
  {
    files: ["packages/capability-sdk/src/**", "apps/capabilities/*/src/**"],
    forbid: ["agent", "subagent", "engine", "config", "store", "capabilities", "shield", "sandbox", "testing", "cli"],
    why: "a capability is a separate, sandboxed server: it knows only the SDK and the protocol",
  },
  {
    files: ["packages/config/src/**"],
    forbid: ["engine", "subagent", "capabilities", "capability-sdk", "sandbox", "testing", "cli"],
    why: "config sits below the Engine: the CLI reads and checks a config without loading the Engine",
  },
  {
    files: ["packages/engine/src/**"],
    forbid: ["cli", "testing"],
    why: "the Engine never imports the CLI, nor test doubles",
  },
];

/**
 * The CLI does not open the store: the Engine does (history, `audit verify`), and the CLI asks it.
 * Two places open a database themselves, by design: `store copy` (work on the store while no Engine
 * uses it) and the read-only history for when no Engine can start (engine/local-history.ts: what
 * was said must stay readable when a broken config or policy keeps the Engine from starting).
 * Type imports open nothing and stay allowed, and so do the store's pure subpaths (text order, the
 * PostgreSQL URL parser).
 */
const CLI_STORE = {
  files: ["apps/cli/src/**"],
  ignores: ["apps/cli/src/commands/store.ts", "apps/cli/src/engine/local-history.ts"],
  modules: ["@palisade/store", "better-sqlite3", "pg"],
  why: "the CLI does not open the store: it asks the Engine (or @palisade/engine's verifyAuditTrail)",
};

// no-restricted-imports sees static imports and re-exports; dynamic import() needs a selector.
const rule = (files, group, source, why) => ({
  files,
  rules: {
    "no-restricted-imports": ["error", { patterns: [{ group, message: `Import boundary: ${why}.` }] }],
    "no-restricted-syntax": [
      "error",
      { selector: `ImportExpression[source.value=/${source}/]`, message: `Import boundary: ${why}.` },
    ],
  },
});

export const boundaries = [
  ...RULES.map(({ files, forbid, why }) => rule(files, pkg(forbid), `^@palisade\\/(${forbid.join("|")})(\\/|$)`, why)),
  {
    // exact names (`paths`), so the pure subpaths such as @palisade/store/text-order stay allowed
    files: CLI_STORE.files,
    ignores: CLI_STORE.ignores,
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: CLI_STORE.modules.map((name) => ({
            name,
            allowTypeImports: true,
            message: `Import boundary: ${CLI_STORE.why}.`,
          })),
        },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: `ImportExpression[source.value=/^(${CLI_STORE.modules.map((m) => m.replace("/", "\\/")).join("|")})$/]`,
          message: `Import boundary: ${CLI_STORE.why}.`,
        },
      ],
    },
  },
];
