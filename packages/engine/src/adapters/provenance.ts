// The sessions' provenance: what each session received (the user's messages, every tool result),
// labelled as the Engine routes it, for the Shield's flow rules. In memory, per session, each
// index bounded by the Shield (256 KiB of fragments); at most MAX_SESSIONS sessions, the least
// recently used dropped first (its next call is then judged without provenance until new content
// arrives, never with another session's).
import { ProvenanceIndex, TRUSTS, trustOfResult, type Shield, type Trust } from "@palisade/shield";
import type { ObservedContent } from "../ports.js";

const MAX_SESSIONS = 256;

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
    const stored = TRUSTS.find((t) => t === c.trust && t !== "user");
    const trust = stored ?? this.trustOf(c);
    const args = parseArgs(c.argumentsJson);
    const l = args["url"] ?? args["path"] ?? args["file"];
    const location = typeof l === "string" ? l : undefined;
    // files this call wrote a secret into are secret from now on (a later push carries them)
    const ctx = {
      provenance: p,
      ...(c.toolSchema ? { toolSchema: c.toolSchema } : {}),
      ...(c.toolSemantics ? { toolSemantics: c.toolSemantics } : {}),
      ...(c.workspace ? { workspace: c.workspace } : {}),
    };
    for (const w of this.shield.secretWrites({ tool: c.toolName ?? "", args }, ctx, c.callId))
      p.markSecretFile(w.path, w.label);
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
    const args = parseArgs(c.argumentsJson);
    const ws = c.workspace ?? "";
    const paths = Object.keys(spec.paths).flatMap((k) => (typeof args[k] === "string" ? [abs(args[k], ws)] : []));
    return trustOfResult({
      spec,
      // by origin (a built-in launched as shipped), never by the capability's or tool's name
      thirdParty: c.builtin !== true,
      paths,
      workspace: ws,
      credentialPath: c.credentialPath ?? false,
    });
  }
}

function parseArgs(json: string | undefined): Record<string, unknown> {
  try {
    const a = JSON.parse(json ?? "{}") as unknown;
    return a !== null && typeof a === "object" && !Array.isArray(a) ? (a as Record<string, unknown>) : {};
  } catch {
    return {}; // arguments were validated before the call ran
  }
}

function abs(p: string, workspace: string): string {
  return p.startsWith("/") ? p : `${workspace}/${p}`;
}
