// Import boundaries that mirror the layers: dependencies point one way (apps -> engine/agent ->
// capabilities/shield/store/sandbox -> protocol), and the process that talks to the model never
// imports what holds state, credentials or decisions. A violation fails `make lint`; the rules are
// a module of their own so test/lint/boundaries.test.ts can show each one firing.

const pkg = (names) => names.flatMap((n) => [`@palisade/${n}`, `@palisade/${n}/*`]);

/** Packages an area may not import, with the reason shown in the lint error. */
const RULES = [
  {
    files: ["packages/agent/src/**", "packages/subagent/src/**"],
    forbid: ["engine", "store", "capabilities", "shield", "sandbox", "cli"],
    why: "the Agent holds no state, credentials or decisions: it speaks to the Engine over RunSession only",
  },
  {
    files: ["packages/protocol/src/**"],
    forbid: [
      "agent",
      "subagent",
      "engine",
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
    forbid: ["agent", "subagent", "engine", "capabilities", "capability-sdk", "testing", "cli"],
    why: "a lower package never imports an upper one (shield, store and sandbox sit below the Engine)",
  },
  {
    files: ["packages/capabilities/src/**"],
    forbid: ["agent", "subagent", "engine", "store", "shield", "testing", "cli"],
    why: "capabilities sits below the Engine and beside the Shield and the store",
  },
  {
    files: ["packages/capability-sdk/src/**", "apps/capabilities/*/src/**"],
    forbid: ["agent", "subagent", "engine", "store", "capabilities", "shield", "sandbox", "testing", "cli"],
    why: "a capability is a separate, sandboxed server: it knows only the SDK and the protocol",
  },
  {
    files: ["packages/engine/src/**"],
    forbid: ["cli", "testing"],
    why: "the Engine never imports the CLI, nor test doubles",
  },
];

// no-restricted-imports sees static imports and re-exports; dynamic import() needs a selector.
export const boundaries = RULES.map(({ files, forbid, why }) => ({
  files,
  rules: {
    "no-restricted-imports": ["error", { patterns: [{ group: pkg(forbid), message: `Import boundary: ${why}.` }] }],
    "no-restricted-syntax": [
      "error",
      {
        selector: `ImportExpression[source.value=/^@palisade\\/(${forbid.join("|")})(\\/|$)/]`,
        message: `Import boundary: ${why}.`,
      },
    ],
  },
}));
