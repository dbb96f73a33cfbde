// Sessions: stored ones live in the store; off-the-record ones only in this object's memory,
// with their conversation, and vanish with the Engine.
import { randomUUID } from "node:crypto";
import { ZERO_USAGE } from "./convert.js";
import type { EngineStore, MessageRecord, Mode, SessionRecord } from "../ports.js";

/** The model a session's next turn runs with: its chosen one, else the configured one. */
export function sessionModel(session: SessionRecord, configured: string): string {
  return session.modelChosen && session.model ? session.model : configured;
}

export class SessionDirectory {
  private readonly otr = new Map<string, { session: SessionRecord; messages: MessageRecord[] }>();

  constructor(
    private readonly store: EngineStore,
    private readonly defaults: () => { workspace: string; model: string },
  ) {}

  async create(req: { mode: Mode; workspace?: string; title?: string; model?: string }): Promise<SessionRecord> {
    const now = Date.now();
    const d = this.defaults();
    const session: SessionRecord = {
      id: `ses_${randomUUID()}`,
      title: req.title ?? "",
      mode: req.mode,
      workspace: req.workspace || d.workspace,
      // A model asked for stays with the session; otherwise the configured one is recorded and
      // followed (sessionModel).
      model: req.model || d.model,
      modelChosen: Boolean(req.model),
      createdAt: now,
      updatedAt: now,
      messageCount: 0,
      usage: ZERO_USAGE,
    };
    if (session.mode === "otr") this.otr.set(session.id, { session, messages: [] });
    else await this.store.createSession(session);
    return session;
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    return this.otr.get(id)?.session ?? (await this.store.getSession(id));
  }

  isOtr(id: string): boolean {
    return this.otr.has(id);
  }

  otrSessions(): SessionRecord[] {
    return [...this.otr.values()].map((e) => e.session);
  }

  /** The conversation so far (OTR: from memory). */
  async messages(session: SessionRecord): Promise<MessageRecord[]> {
    const entry = this.otr.get(session.id);
    return entry ? entry.messages : await this.store.contextMessages(session.id);
  }

  /** Remembers an OTR turn in memory only. */
  appendOtr(sessionId: string, messages: MessageRecord[]): void {
    const entry = this.otr.get(sessionId);
    if (!entry) return;
    for (const m of messages) entry.messages.push({ ...m, seq: entry.messages.length + 1 });
    entry.session.messageCount = entry.messages.length;
    entry.session.updatedAt = Date.now();
  }

  otrHistory(sessionId: string): MessageRecord[] | undefined {
    return this.otr.get(sessionId)?.messages;
  }

  rename(id: string, title: string): SessionRecord | undefined {
    const entry = this.otr.get(id);
    if (!entry) return undefined;
    entry.session.title = title;
    return entry.session;
  }

  async delete(id: string): Promise<boolean> {
    if (this.otr.delete(id)) return true;
    return this.store.deleteSession(id);
  }
}

/** A title from the first user message: first line, at most 60 characters. */
export function titleFrom(content: string): string {
  const line = content.trim().split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}
