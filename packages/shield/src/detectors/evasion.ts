import { KNOWN_TOOLS } from "../tools.js";
import type { Detector } from "./types.js";

const TOOL_NAME = /^[a-z0-9][a-z0-9_-]{0,63}(__[a-z0-9][a-z0-9_.-]{0,63})?$/;
// eslint-disable-next-line no-control-regex -- control characters are what shield.control-chars looks for
const CONTROL = /\0|\x1b\[|\x1b\]/;
const KNOWN_LOWER = new Map(Object.keys(KNOWN_TOOLS).map((t) => [t.toLowerCase(), t]));
/** Built-in names that pass both checks below: most actions, answered without lower-casing. */
const WELL_FORMED_KNOWN = new Set(
  Object.keys(KNOWN_TOOLS).filter((t) => KNOWN_LOWER.get(t.toLowerCase()) === t && TOOL_NAME.test(t)),
);

export const evasion: Detector[] = [
  {
    id: "shield.tool-name",
    category: "shield-evasion",
    severity: "block",
    description: "Malformed tool names, or names imitating a built-in tool",
    detect(s) {
      if (WELL_FORMED_KNOWN.has(s.tool)) return undefined;
      const k = KNOWN_LOWER.get(s.tool.toLowerCase());
      if (k !== undefined && k !== s.tool) return { reason: `tool name ${s.tool} imitates ${k}` };
      if (!TOOL_NAME.test(s.tool)) return { reason: `malformed tool name ${JSON.stringify(s.tool.slice(0, 80))}` };
      return undefined;
    },
  },
  {
    id: "shield.limits",
    category: "shield-evasion",
    severity: "escalate",
    description: "Arguments too large or deep to analyze completely",
    when: { limits: true },
    detect(s) {
      return s.limits.length > 0 ? { reason: `not fully analyzed: ${s.limits.join("; ")}` } : undefined;
    },
  },
  {
    id: "shield.shell-syntax",
    category: "shield-evasion",
    severity: "escalate",
    description: "Shell commands the reader could not parse cleanly (unterminated quotes, substitutions)",
    when: { shellErrors: true },
    detect(s) {
      return s.shellErrors.length > 0
        ? { reason: `shell syntax: ${[...new Set(s.shellErrors)].join(", ")}` }
        : undefined;
    },
  },
  {
    id: "shield.control-chars",
    category: "shield-evasion",
    severity: "block",
    description: "NUL bytes and terminal escape sequences in arguments",
    when: { text: CONTROL },
    detect(s) {
      const v = s.views.find((v) => v.origin === "raw" && CONTROL.test(v.text));
      return v !== undefined ? { reason: `control characters in ${v.key}` } : undefined;
    },
  },
];
