// EngineStore over @palisade/store (better-sqlite3, WAL). The only file that knows its API; the
// rows it writes and reads are mapped in store-rows.ts.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { mkdir, readdir, readFile, rm, unlink } from "node:fs/promises";
import { join } from "node:path";
import { loadOrCreateAuditKey, Store } from "@palisade/store";
import { CONTEXT_CACHE_CHARS, ContextCache } from "./context-cache.js";
import { auditRow, callRow, message, searchOptions, session } from "./store-rows.js";
import type { MigrationStep, MessageRecord as StoredMessage } from "@palisade/store";
import type {
  AuditEntry,
  EngineStore,
  MessageRecord,
  RetentionOutcome,
  SearchHitRecord,
  SearchQuery,
  SessionRecord,
  SessionSortKey,
  TurnCommit,
} from "../ports.js";

export const DATABASE_FILE = "palisade.db";
/** Beside the database: a note per turn running (see SqliteStore.recoverInterrupted). */
export const TURNS_IN_FLIGHT_DIR = "turns-in-flight";

class SqliteStore implements EngineStore {
  /**
   * The Agent's context of recently active sessions. Reading a whole conversation back from
   * SQLite at every turn costs more the longer the session gets; this adapter is the Engine's
   * only writer of a session's transcript (commitTurn appends, deleteSession and retention
   * drop), so the copy stays exactly what contextMessages would read.
   */
  private readonly contexts: ContextCache;

  /**
   * User messages committed when their turn started (claimSession), by id: a kill -9 mid-turn
   * keeps them. Their turn's commit adds the rest; until then the Agent's context leaves them
   * out (the turn sends its message itself).
   */
  private readonly started = new Map<string, MessageRecord>();

  /**
   * The fsyncs started for those messages, until they succeed or their turn's commit reports
   * their failure: a durability point after them (a tool call's audit entry, the turn's commit)
   * waits for them too, so a failed fsync is never covered by a later one that succeeds.
   */
  private readonly claimSyncs = new Map<string, Promise<void>>();

  /**
   * @param inFlightDir one small file per turn running, written when its user message is
   *   committed and removed with its commit: what a new Engine finds there was cut off.
   */
  constructor(
    private readonly store: Store,
    contextCacheChars = CONTEXT_CACHE_CHARS,
    private readonly inFlightDir?: string,
  ) {
    this.contexts = new ContextCache(contextCacheChars);
  }

  /**
   * One Engine per database, so always granted; commits the turn's user message now (a kill -9
   * keeps it from here on) and notes the turn as in flight. Its fsync runs while the Agent is
   * asked: the Agent's answer is no effect, and the next point that must be durable against a
   * power cut (a tool call's audit entry, the turn's commit) waits for it.
   */
  async claimSession(
    sessionId: string,
    turn: { userMessageId: string; content: string; createdAt: number },
  ): Promise<{ ok: true }> {
    if (this.started.has(turn.userMessageId)) return { ok: true };
    // The note first: a note without its message is skipped at recovery, a message without its
    // note is not. Written synchronously, as the commit after it is: a few small syscalls, where the
    // promise API opened a FileHandle through the thread pool (half of this method's CPU).
    if (this.inFlightDir)
      writeFileSync(
        join(this.inFlightDir, turn.userMessageId),
        JSON.stringify({ sessionId, userMessageId: turn.userMessageId }),
        { mode: 0o600 },
      );
    const committed = this.store.commitTurn(sessionId, {
      messages: [{ id: turn.userMessageId, role: "user", content: turn.content, createdAt: turn.createdAt }],
    });
    const user = committed.messages[0];
    if (user) this.started.set(turn.userMessageId, message(user));
    const synced = this.store.sync();
    this.claimSyncs.set(turn.userMessageId, synced);
    synced.then(
      () => this.claimSyncs.delete(turn.userMessageId),
      () => undefined, // kept: the turn's commit reports it
    );
    return { ok: true };
  }

  /**
   * Turns an Engine left in flight (killed, crashed, a power cut): their user message is in the
   * history, their answer is not. Each gets a TURN_INTERRUPTED event naming the message, as a
   * turn cut off on the PostgreSQL store does. Called once, before this Engine serves.
   */
  async recoverInterrupted(log: (line: string) => void): Promise<void> {
    if (!this.inFlightDir) return;
    await mkdir(this.inFlightDir, { recursive: true, mode: 0o700 });
    let marked = 0;
    for (const name of await readdir(this.inFlightDir)) {
      const file = join(this.inFlightDir, name);
      try {
        const { sessionId, userMessageId } = JSON.parse(await readFile(file, "utf8")) as {
          sessionId: string;
          userMessageId: string;
        };
        const user = this.store.getMessage(userMessageId);
        const last = this.store.lastEvent(sessionId);
        // committed after all (the Engine died between its commit and removing the note): nothing to mark
        if (user && !(last && last.createdAt >= user.createdAt)) {
          this.store.appendEvent({
            sessionId,
            messageId: `interrupted_${randomUUID()}`,
            type: "TURN_INTERRUPTED",
            payload: {
              reason: "the Engine stopped while this turn ran (killed or crashed); its answer was not saved",
              userMessageId,
            },
          });
          marked++;
        }
      } catch (err) {
        log(`history: could not read the note of a turn in flight ${file}: ${(err as Error).message}`);
      }
      await rm(file, { force: true });
    }
    if (marked === 0) return;
    await this.store.sync();
    log(
      `history: ${String(marked)} turn(s) were cut off when the Engine last stopped; their messages are kept, marked interrupted`,
    );
  }

  async createSession(s: SessionRecord): Promise<void> {
    this.store.createSession({
      id: s.id,
      title: s.title,
      ...(s.title ? { titleSource: "user" as const } : {}),
      mode: s.mode === "heartbeat" ? "heartbeat" : "normal",
      workspace: s.workspace,
      model: s.model,
      modelChosen: s.modelChosen ?? false,
      createdAt: s.createdAt,
    });
    await this.store.sync();
  }

  async recordSessionModel(id: string, model: string): Promise<void> {
    this.store.recordSessionModel(id, model);
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const s = this.store.getSession(id);
    return s ? session(s) : undefined;
  }

  async listSessions(q: { limit: number; offset: number; sort: SessionSortKey; titleFilter?: string }) {
    const page = this.store.listSessions(q);
    return { sessions: page.sessions.map(session), total: page.total };
  }

  async renameSession(id: string, title: string): Promise<SessionRecord | undefined> {
    if (!this.store.getSession(id)) return undefined;
    const renamed = session(this.store.renameSession(id, title));
    await this.store.sync();
    return renamed;
  }

  async setAutoTitle(id: string, title: string): Promise<boolean> {
    if (!this.store.getSession(id)) return false;
    const changed = this.store.setAutoTitle(id, title, "auto");
    await this.store.sync();
    return changed;
  }

  forget(sessionId: string): void {
    this.contexts.delete(sessionId);
  }

  cachedSessions(): number {
    return this.contexts.size;
  }

  async deleteSession(id: string): Promise<boolean> {
    const res = this.store.deleteSession(id);
    this.contexts.delete(id);
    await Promise.all([this.store.sync(), ...res.artifactPaths.map((p) => rm(p, { force: true }))]);
    return res.deleted;
  }

  async applyRetention(q: { maxAgeDays?: number; maxBytes?: number }): Promise<RetentionOutcome> {
    const res = this.store.applyRetention(q);
    for (const id of res.deletedSessions) this.contexts.delete(id);
    await Promise.all([this.store.sync(), ...res.artifactPaths.map((p) => rm(p, { force: true }))]);
    return { deletedSessions: res.deletedSessions, bytesBefore: res.bytesBefore, bytesAfter: res.bytesAfter };
  }

  async appendAudit(entries: AuditEntry[], opts: { sync?: boolean } = {}): Promise<void> {
    if (entries.length === 0) return;
    this.store.appendAudits(entries.map(auditRow));
    if (opts.sync !== false) await Promise.all([this.store.sync(), ...this.claimSyncs.values()]);
  }

  async contextMessages(sessionId: string): Promise<MessageRecord[]> {
    const cached = this.contexts.get(sessionId);
    if (cached) return [...cached];
    const loaded = this.loadContext(sessionId).filter((m) => !this.started.has(m.id));
    this.contexts.set(sessionId, loaded);
    return [...loaded];
  }

  private loadContext(sessionId: string): MessageRecord[] {
    const pages: StoredMessage[][] = [];
    let cursor = "";
    do {
      const page = this.store.getHistory(sessionId, { limit: 1000, ...(cursor ? { cursor } : {}) });
      pages.unshift(page.messages);
      cursor = page.nextCursor;
    } while (cursor);
    return pages.flat().map(message);
  }

  async history(sessionId: string, q: { limit: number; cursor?: string }) {
    const page = this.store.getHistory(sessionId, q.cursor ? { limit: q.limit, cursor: q.cursor } : { limit: q.limit });
    return { messages: page.messages.map(message), nextCursor: page.nextCursor };
  }

  async commitTurn(t: TurnCommit): Promise<void> {
    const sid = t.session.id;
    // committed when the turn started (claimSession), or now
    const early = this.started.get(t.user.id);
    const messages: NonNullable<Parameters<Store["commitTurn"]>[1]["messages"]> = early
      ? []
      : [{ id: t.user.id, role: "user", content: t.user.content, createdAt: t.user.createdAt }];
    if (t.assistant) {
      messages.push({
        id: t.assistant.id,
        role: "assistant",
        content: t.assistant.content,
        createdAt: t.assistant.createdAt,
        usage: t.assistant.usage,
        parentId: t.user.id,
      });
    }
    const owner = t.assistant?.id ?? t.user.id;
    const audit = (t.audit ?? []).map(auditRow);
    let committed: ReturnType<Store["commitTurn"]>;
    try {
      committed = this.store.commitTurn(sid, {
        messages,
        toolCalls: t.toolCalls.map((c) => callRow(c, owner)),
        events: t.events.map((e) => ({
          messageId: e.messageId,
          type: e.type,
          payload: e.payloadJson,
          createdAt: e.timestamp,
        })),
        ...(t.title ? { autoTitle: { title: t.title, source: "first_message" as const } } : {}),
        ...(audit.length > 0 ? { audit } : {}),
      });
    } catch (err) {
      if (audit.length === 0) throw err;
      // The turn's rows were rolled back with its audit entries; the calls those record did run.
      try {
        this.store.appendAudits(audit);
      } catch (auditErr) {
        throw new Error(
          `${(err as Error).message}; its ${String(audit.length)} audit entries could not be written either: ${(auditErr as Error).message}`,
          { cause: err },
        );
      }
      await this.store.sync();
      throw err;
    }
    if (early) this.started.delete(t.user.id);
    this.contexts.append(sid, [...(early ? [early] : []), ...committed.messages.map(message)]);
    // Durable against a power cut before the caller announces the turn (RESPONSE_COMPLETE).
    const claimed = this.claimSyncs.get(t.user.id);
    this.claimSyncs.delete(t.user.id);
    await Promise.all([this.store.sync(), claimed]);
    // The note goes once the commit is durable, without holding up the turn: a note still there
    // at the next start (a power cut before the fsync, the Engine stopped meanwhile) names a
    // message whose turn is found committed, or was cut off.
    if (early && this.inFlightDir) unlink(join(this.inFlightDir, t.user.id)).catch(() => undefined);
  }

  async search(q: SearchQuery): Promise<{ hits: SearchHitRecord[]; total: number }> {
    const res = this.store.search(q.query, searchOptions(q));
    return { hits: res.hits.map((h) => ({ ...h })), total: res.total };
  }

  async exportSession(id: string, format: "md" | "json") {
    if (!this.store.getSession(id)) return undefined;
    return this.store.exportSession(id, format);
  }

  async countSessions(): Promise<number> {
    return this.store.stats().sessions;
  }

  async countToolCallsSince(sinceMs: number): Promise<number> {
    return this.store.stats(sinceMs).actionsToday;
  }

  /**
   * The live seq of the last stored event (kept in its payload; token events are not stored,
   * so the store's own row seq runs behind). Finds the last row by galloping search.
   */
  async lastEventSeq(sessionId: string): Promise<number> {
    const exists = (n: number): boolean => this.store.listEvents(sessionId, n - 1, 1).length > 0;
    if (!exists(1)) return 0;
    let lo = 1;
    let hi = 2;
    while (exists(hi)) {
      lo = hi;
      hi *= 2;
    }
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (exists(mid)) lo = mid;
      else hi = mid;
    }
    const last = this.store.listEvents(sessionId, lo - 1, 1)[0];
    if (!last) return 0;
    try {
      const seq = Number((JSON.parse(last.payload) as { seq?: string | number }).seq ?? last.seq);
      return Number.isFinite(seq) ? seq : last.seq;
    } catch {
      return last.seq;
    }
  }

  async saveMemory(entry: {
    sessionId: string;
    messageId: string;
    content: string;
    summary: string;
    compactedMessages: number;
  }): Promise<void> {
    this.store.appendMemory(entry);
    await this.store.sync();
  }

  async memory(sessionId: string) {
    const list = this.store.listMemory(sessionId);
    const last = [...list].reverse().find((m) => m.summary);
    return {
      facts: list.map((m) => m.content).filter(Boolean),
      summary: last?.summary ?? "",
      compactedMessages: last?.compactedMessages ?? 0,
    };
  }

  describe(): string {
    return `SQLite ${this.store.path}`;
  }

  async close(): Promise<void> {
    this.store.close();
  }
}

/**
 * synchronous=NORMAL plus `store.sync()` after each write: a write is durable (kill and power
 * cut) when its promise resolves, as with FULL, but the fsync runs off the event loop and
 * concurrent writers share it, so one session's commit never stalls the others.
 */
export async function openSqliteStore(
  dataDir: string,
  log: (line: string) => void = () => undefined,
  auditKeyFile?: string,
  options: { contextCacheChars?: number } = {},
): Promise<EngineStore> {
  const onMigration = (step: MigrationStep): void =>
    log(
      step.phase === "start"
        ? `history: upgrading the database from schema v${String(step.from)} to v${String(step.to)}; on a large history this takes minutes (the Engine answers once it is done)`
        : `history: database upgraded to schema v${String(step.to)} in ${(step.ms / 1000).toFixed(1)} s`,
    );
  const path = join(dataDir, DATABASE_FILE);
  const store = Store.open(path, { synchronous: "normal", onMigration });
  if (auditKeyFile !== undefined) {
    // the audit chain is keyed with a secret outside the data directory (see docs/history.md)
    try {
      store.setAuditKey(await loadOrCreateAuditKey(auditKeyFile, path, store.auditHead().seq));
    } catch (err) {
      store.close();
      throw err;
    }
  }
  const sqlite = new SqliteStore(store, options.contextCacheChars, join(dataDir, TURNS_IN_FLIGHT_DIR));
  await sqlite.recoverInterrupted(log);
  return sqlite;
}
