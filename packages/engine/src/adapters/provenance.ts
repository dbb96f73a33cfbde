// The sessions' provenance: what each session received (the user's messages, every tool result),
// labelled as the Engine routes it, for the Shield's flow rules. In memory, per session, each
// index bounded by the Shield (256 KiB of fragments); at most MAX_SESSIONS sessions, the least
// recently used dropped first (its next call is then judged without provenance until new content
// arrives, never with another session's).
import { ProvenanceIndex, trustOfResult, type Shield, type Trust } from "@palisade/shield";
import type { ObservedContent } from "../ports.js";

const MAX_SESSIONS = 256;
/** Palisade's own capabilities: their results are labelled by what the tool did (a workspace read). */
const OWN_CAPABILITIES = new Set(["files", "shell", "http", "documents", "mail", "load_tools", "engine"]);

export class SessionProvenance {
  private readonly sessions = new Map<string, ProvenanceIndex>();

  constructor(private readonly shield: Shield) {}

  of(sessionId: string): ProvenanceIndex | undefined {
    const p = this.sessions.get(sessionId);
    if (p !== undefined) {
      this.sessions.delete(sessionId);
      this.sessions.set(sessionId, p);
    }
    return p;
  }

  private ensure(sessionId: string): ProvenanceIndex {
    let p = this.of(sessionId);
    if (p === undefined) {
      p = new ProvenanceIndex();
      this.sessions.set(sessionId, p);
      if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    }
    return p;
  }

  observe(c: ObservedContent): Trust {
    const p = this.ensure(c.sessionId);
    if (c.kind === "user-message") {
      p.addUserMessage(c.text);
      return "user";
    }
    const trust = this.trustOf(c);
    let location: string | undefined;
    try {
      const a = JSON.parse(c.argumentsJson ?? "{}") as Record<string, unknown>;
      const l = a["url"] ?? a["path"] ?? a["file"];
      if (typeof l === "string") location = l;
    } catch {
      /* arguments were validated before the call ran */
    }
    p.add(c.text, {
      trust,
      source: {
        kind: "tool-result",
        ...(c.toolName ? { tool: c.toolName } : {}),
        ...(c.callId ? { callId: c.callId } : {}),
        ...(c.capabilityId ? { capability: c.capabilityId } : {}),
        ...(location ? { location } : {}),
        at: Date.now(),
      },
    });
    return trust;
  }

  private trustOf(c: ObservedContent): Trust {
    const ctx = {
      ...(c.toolSchema ? { toolSchema: c.toolSchema } : {}),
      ...(c.toolSemantics ? { toolSemantics: c.toolSemantics } : {}),
      ...(c.toolDescription ? { toolDescription: c.toolDescription } : {}),
      ...(c.workspace ? { workspace: c.workspace } : {}),
    };
    let spec;
    try {
      spec = this.shield.semantics(c.toolName ?? "", ctx);
    } catch {
      return "untrusted";
    }
    const args = (() => {
      try {
        return JSON.parse(c.argumentsJson ?? "{}") as Record<string, unknown>;
      } catch {
        return {};
      }
    })();
    const ws = c.workspace ?? "";
    const paths = Object.keys(spec.paths).flatMap((k) => (typeof args[k] === "string" ? [abs(args[k], ws)] : []));
    return trustOfResult({
      spec,
      thirdParty: !OWN_CAPABILITIES.has(c.capabilityId ?? ""),
      paths,
      workspace: ws,
      credentialPath: c.credentialPath ?? false,
    });
  }
}

function abs(p: string, workspace: string): string {
  return p.startsWith("/") ? p : `${workspace}/${p}`;
}
