// An in-memory EngineStore: for tests that do not care about persistence and as a reference
// for the port's semantics. The Engine uses the SQLite store (adapters/sqlite-store.ts).
import type {
  AuditEntry,
  EngineStore,
  EventRecord,
  MessageRecord,
  SearchHitRecord,
  SearchQuery,
  SessionRecord,
  SessionSortKey,
  RetentionOutcome,
  TurnCommit,
} from "../ports.js";

export class MemoryStore implements EngineStore {
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly messages = new Map<string, MessageRecord[]>();
  private readonly events = new Map<string, EventRecord[]>();
  private readonly memories = new Map<string, { content: string; summary: string; compactedMessages: number }[]>();
  private readonly userTitled = new Set<string>();
  /** The audit entries appended, in order (no hash chain: that is the SQLite store's). */
  readonly audit: AuditEntry[] = [];

  async createSession(session: SessionRecord): Promise<void> {
    this.sessions.set(session.id, { ...session });
    this.messages.set(session.id, []);
    if (session.title) this.userTitled.add(session.id);
  }

  async recordSessionModel(id: string, model: string): Promise<void> {
    const s = this.sessions.get(id);
    if (s && !s.modelChosen) s.model = model;
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const s = this.sessions.get(id);
    return s ? { ...s } : undefined;
  }

  async listSessions(q: { limit: number; offset: number; sort: SessionSortKey; titleFilter?: string }) {
    const filter = q.titleFilter?.toLowerCase();
    const all = [...this.sessions.values()].filter((s) => !filter || s.title.toLowerCase().includes(filter));
    const key: Record<SessionSortKey, (a: SessionRecord, b: SessionRecord) => number> = {
      updated_desc: (a, b) => b.updatedAt - a.updatedAt,
      updated_asc: (a, b) => a.updatedAt - b.updatedAt,
      created_desc: (a, b) => b.createdAt - a.createdAt,
      created_asc: (a, b) => a.createdAt - b.createdAt,
      title: (a, b) => a.title.localeCompare(b.title),
    };
    all.sort(key[q.sort]);
    return { sessions: all.slice(q.offset, q.offset + q.limit).map((s) => ({ ...s })), total: all.length };
  }

  async renameSession(id: string, title: string): Promise<SessionRecord | undefined> {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    s.title = title;
    this.userTitled.add(id);
    return { ...s };
  }

  async setAutoTitle(id: string, title: string): Promise<boolean> {
    const s = this.sessions.get(id);
    if (!s || this.userTitled.has(id)) return false;
    s.title = title;
    return true;
  }

  async applyRetention(q: { maxAgeDays?: number; maxBytes?: number }): Promise<RetentionOutcome> {
    const cutoff = q.maxAgeDays === undefined ? -Infinity : Date.now() - q.maxAgeDays * 86_400_000;
    const old = [...this.sessions.values()].filter((s) => s.updatedAt < cutoff).map((s) => s.id);
    for (const id of old) await this.deleteSession(id);
    return { deletedSessions: old, bytesBefore: 0, bytesAfter: 0 };
  }

  async appendAudit(entries: AuditEntry[]): Promise<void> {
    this.audit.push(...entries.map((e) => ({ ...e })));
  }

  async deleteSession(id: string): Promise<boolean> {
    this.messages.delete(id);
    this.events.delete(id);
    this.memories.delete(id);
    return this.sessions.delete(id);
  }

  async contextMessages(sessionId: string): Promise<MessageRecord[]> {
    return (this.messages.get(sessionId) ?? []).map((m) => ({ ...m }));
  }

  async history(sessionId: string, q: { limit: number; cursor?: string }) {
    const all = this.messages.get(sessionId) ?? [];
    const end = q.cursor ? Number(q.cursor) : all.length;
    const start = Math.max(0, end - q.limit);
    return { messages: all.slice(start, end).map((m) => ({ ...m })), nextCursor: start > 0 ? String(start) : "" };
  }

  async commitTurn(turn: TurnCommit): Promise<void> {
    const list = this.messages.get(turn.session.id);
    if (!list) throw new Error(`session ${turn.session.id} does not exist`);
    this.audit.push(...(turn.audit ?? []).map((e) => ({ ...e })));
    list.push({
      id: turn.user.id,
      sessionId: turn.session.id,
      role: "user",
      content: turn.user.content,
      createdAt: turn.user.createdAt,
      toolCalls: [],
      seq: list.length + 1,
    });
    if (turn.assistant) {
      list.push({
        id: turn.assistant.id,
        sessionId: turn.session.id,
        role: "assistant",
        content: turn.assistant.content,
        createdAt: turn.assistant.createdAt,
        toolCalls: turn.toolCalls.map((c) => ({ ...c })),
        usage: turn.assistant.usage,
        seq: list.length + 1,
      });
    }
    this.sessions.set(turn.session.id, { ...turn.session, messageCount: list.length });
    const events = this.events.get(turn.session.id) ?? [];
    events.push(...turn.events);
    this.events.set(turn.session.id, events);
  }

  /**
   * Substring search with the SQLite store's filters: session, time window, role ("tool" also
   * matches tool calls), and a tool name or a Shield decision, which match tool calls only.
   */
  async search(q: SearchQuery): Promise<{ hits: SearchHitRecord[]; total: number }> {
    const needle = q.query.toLowerCase();
    const inWindow = (at: number): boolean =>
      (q.fromMs === undefined || at >= q.fromMs) && (q.toMs === undefined || at < q.toMs);
    const wantMessages = q.toolName === undefined && q.decision === undefined;
    const wantTools = q.role === undefined || q.role === "tool";
    const hits: SearchHitRecord[] = [];
    for (const [sessionId, list] of this.messages) {
      if (q.sessionId && q.sessionId !== sessionId) continue;
      const sessionTitle = this.sessions.get(sessionId)?.title ?? "";
      for (const m of list) {
        const hit = { sessionId, sessionTitle, messageId: m.id, rank: 0, seq: m.seq };
        if (wantMessages && (q.role === undefined || q.role === m.role) && inWindow(m.createdAt))
          if (m.content.toLowerCase().includes(needle))
            hits.push({
              ...hit,
              callId: "",
              toolName: "",
              role: m.role,
              snippet: m.content.slice(0, 120),
              createdAt: m.createdAt,
            });
        if (!wantTools) continue;
        for (const c of m.toolCalls) {
          if (q.toolName !== undefined && c.toolName !== q.toolName) continue;
          if (q.decision !== undefined && c.verdict?.decision !== q.decision) continue;
          if (!inWindow(c.startedAt)) continue;
          const text = [c.toolName, c.argumentsJson, c.result].join(" ");
          if (!text.toLowerCase().includes(needle)) continue;
          hits.push({
            ...hit,
            callId: c.callId,
            toolName: c.toolName,
            role: "tool",
            snippet: text.slice(0, 120),
            createdAt: c.startedAt,
          });
        }
      }
    }
    return { hits: hits.slice(q.offset, q.offset + q.limit), total: hits.length };
  }

  async exportSession(id: string, format: "md" | "json") {
    const s = this.sessions.get(id);
    if (!s) return undefined;
    const msgs = this.messages.get(id) ?? [];
    if (format === "json")
      return {
        content: JSON.stringify({ session: s, messages: msgs }, null, 2),
        filename: `${id}.json`,
        mimeType: "application/json",
      };
    return {
      content: msgs.map((m) => `**${m.role}**: ${m.content}`).join("\n\n"),
      filename: `${id}.md`,
      mimeType: "text/markdown",
    };
  }

  async countSessions(): Promise<number> {
    return this.sessions.size;
  }

  async countToolCallsSince(sinceMs: number): Promise<number> {
    let n = 0;
    for (const list of this.messages.values())
      for (const m of list) for (const c of m.toolCalls) if (c.startedAt >= sinceMs) n++;
    return n;
  }

  async lastEventSeq(sessionId: string): Promise<number> {
    const ev = this.events.get(sessionId) ?? [];
    return ev.reduce((max, e) => Math.max(max, e.seq), 0);
  }

  async saveMemory(entry: {
    sessionId: string;
    messageId: string;
    content: string;
    summary: string;
    compactedMessages: number;
  }): Promise<void> {
    const list = this.memories.get(entry.sessionId) ?? [];
    list.push({ content: entry.content, summary: entry.summary, compactedMessages: entry.compactedMessages });
    this.memories.set(entry.sessionId, list);
  }

  async memory(sessionId: string) {
    const list = this.memories.get(sessionId) ?? [];
    const last = [...list].reverse().find((m) => m.summary);
    return {
      facts: list.map((m) => m.content).filter(Boolean),
      summary: last?.summary ?? "",
      compactedMessages: last?.compactedMessages ?? 0,
    };
  }

  /** Test helper: every event stored for a session. */
  storedEvents(sessionId: string): EventRecord[] {
    return [...(this.events.get(sessionId) ?? [])];
  }

  async close(): Promise<void> {}
}
