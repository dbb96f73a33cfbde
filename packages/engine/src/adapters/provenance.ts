// The sessions' provenance: what each session received (the user's messages, every tool result),
// labelled as the Engine routes it, for the Shield's flow rules. In memory, per session, each
// index bounded by the Shield (256 KiB of fragments, 64 KiB of the user's); all of them together
// bounded by what they hold, the least recently used session dropped first (its next turn reads
// its labels back from the store, see turns/provenance-replay.ts; until then a call is judged
// without them, never with another session's). A bound by count would drop and read back every
// session at each turn as soon as more sessions take turns in rotation than it counts.
import { ProvenanceIndex, TRUSTS, trustOfResult, type Shield, type Trust } from "@palisade/shield";
import type { ObservedContent } from "../ports.js";

/** What one session's index may cost besides its fragments (its maps, the user's last messages as written). */
export const SESSION_OVERHEAD_BYTES = 32 * 1024;
/** Every session's index together: as much as 256 sessions whose indexes are full. */
export const PROVENANCE_MAX_BYTES = 256 * (320 * 1024 + SESSION_OVERHEAD_BYTES);

const bytesOf = (p: ProvenanceIndex): number => {
  const u = p.usage();
  return u.bytes + u.userBytes + SESSION_OVERHEAD_BYTES;
};

export class SessionProvenance {
  private readonly sessions = new Map<string, { index: ProvenanceIndex; bytes: number }>();
  private total = 0;

  constructor(
    private readonly shield: Shield,
    private readonly maxBytes = PROVENANCE_MAX_BYTES,
  ) {}

  of(sessionId: string): ProvenanceIndex | undefined {
    const entry = this.sessions.get(sessionId);
    if (entry !== undefined) {
      this.sessions.delete(sessionId);
      this.sessions.set(sessionId, entry);
    }
    return entry?.index;
  }

  /** Sessions held, and the bytes they are counted for. */
  usage(): { sessions: number; bytes: number } {
    return { sessions: this.sessions.size, bytes: this.total };
  }

  private ensure(sessionId: string): ProvenanceIndex {
    const p = this.of(sessionId);
    if (p !== undefined) return p;
    const index = new ProvenanceIndex();
    // counted, and others dropped when over the bound, by observe() once it has labelled
    this.sessions.set(sessionId, { index, bytes: 0 });
    return index;
  }

  /** Counts what the session's index now holds; drops the least recently used others while over the bound. */
  private recount(sessionId: string): void {
    const entry = this.sessions.get(sessionId);
    if (entry === undefined) return;
    const bytes = bytesOf(entry.index);
    this.total += bytes - entry.bytes;
    entry.bytes = bytes;
    for (const [id, other] of this.sessions) {
      if (this.total <= this.maxBytes) break;
      if (id === sessionId) continue;
      this.sessions.delete(id);
      this.total -= other.bytes;
    }
  }

  observe(c: ObservedContent): Trust {
    const trust = this.label(c);
    this.recount(c.sessionId);
    return trust;
  }

  private label(c: ObservedContent): Trust {
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
