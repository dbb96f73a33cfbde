import type { Detector } from "./types.js";
import { clip, firstView } from "./util.js";

const SENSITIVE_MENTION =
  /(~|\$HOME|\/home\/[\w.-]+|\/root|\/Users\/[\w.-]+)\/\.(ssh|aws|kube|gnupg|docker|config\/gcloud)\b|\bid_(rsa|ed25519|ecdsa)\b|\/etc\/(shadow|sudoers)|\.git-credentials|\.netrc\b|\bauthorized_keys\b|(?:^|[\s'"`/])\.env\b(?!\.(example|sample|template))/i;

export const delegation: Detector[] = [
  {
    id: "delegation.nested-spawn",
    category: "delegation",
    severity: "escalate",
    description: "A sub-agent starting or messaging further agents",
    when: { kinds: ["spawn-agent", "agent-message"] },
    detect(s) {
      return s.ctx.subAgent !== undefined && (s.kind === "spawn-agent" || s.kind === "agent-message")
        ? { reason: `sub-agent ${s.ctx.subAgent} delegates further (${s.tool})` }
        : undefined;
    },
  },
  {
    id: "delegation.sensitive-task",
    category: "delegation",
    severity: "escalate",
    description: "Tasks or messages to agents that point at credentials and secrets",
    when: { kinds: ["spawn-agent", "agent-message"] },
    detect(s) {
      const v = firstView(s.modelFacing, SENSITIVE_MENTION);
      return v !== undefined && (s.kind === "spawn-agent" || s.kind === "agent-message")
        ? { reason: `delegated text mentions ${clip(v.match)}` }
        : undefined;
    },
  },
];
