// EngineStore over @palisade/store's PgStore: the history in PostgreSQL, possibly shared by
// several Engines (each live session leased to one of them, see ../leases/keeper.ts). The same
// records as the SQLite adapter (its row mappings are reused), with three differences: every
// call is asynchronous; a commit is durable when it resolves (synchronous_commit), so there is
// no separate sync; and the context cache is checked against the session's message count,
// since another Engine may have added turns while this one was not serving the session.
import { randomUUID } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import { storedStorePassword } from "@palisade/capabilities";
import { PgStore, StoreError, loadOrCreateKeySecret } from "@palisade/store";
import type { MigrationStep, MessageRecord as StoredMessage, TurnRows } from "@palisade/store";
import type { StoreConfig } from "@palisade/config";
import { EngineError } from "../errors.js";
import { LeaseKeeper, defaultEngineId, describeOwner } from "../leases/keeper.js";
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
  RunSummary,
  StoredRun,
  SubAgentRunStore,
} from "../ports.js";
import { CONTEXT_CACHE_CHARS, ContextCache } from "./context-cache.js";
import { auditRow, callRow, message, runCallRow, searchOptions, session } from "./store-rows.js";

/**
 * The role's password: PGPASSWORD, else the credential store (`<data dir>/credentials.json`,
 * `palisade store password set`), else `password_file` (owner-only), else none (the driver then
 * reads ~/.pgpass). PGPASSWORD is removed from this process's environment once read, so no child
 * process (Agent, capability) inherits it; the data directory is never in their view.
 */
export async function storePassword(
  cfg: StoreConfig,
  env: NodeJS.ProcessEnv = process.env,
  dataDir?: string,
): Promise<string | undefined> {
  const fromEnv = env.PGPASSWORD;
  if (fromEnv !== undefined && fromEnv !== "") {
    delete env.PGPASSWORD;
    return fromEnv;
  }
  const stored = dataDir === undefined ? undefined : await storedStorePassword(dataDir);
  if (stored !== undefined) return stored;
  if (cfg.passwordFile === undefined) return undefined;
  let mode: number;
  try {
    mode = statSync(cfg.passwordFile).mode;
  } catch (err) {
    throw new EngineError("STORE_CONFIG", `store.password_file ${cfg.passwordFile}: ${(err as Error).message}`);
  }
  if ((mode & 0o077) !== 0) {
    throw new EngineError(
      "STORE_CONFIG",
      `store.password_file ${cfg.passwordFile} is readable by other users (mode ${(mode & 0o777).toString(8)}): chmod 600 ${cfg.passwordFile}`,
    );
  }
  return readFileSync(cfg.passwordFile, "utf8").replace(/\r?\n$/, "");
}

/** Finished sub-agent runs in the same database: the run row, its transcript and tool calls, in one transaction. */
class PgRunStore implements SubAgentRunStore {
  constructor(private readonly store: PgStore) {}

  async save(run: StoredRun): Promise<void> {
    const parent =
      (await this.store.getMessage(run.parentMessageId)) ?? (await this.store.getMessage(run.parentUserMessageId));
    const transcript = run.transcript.map((m) => ({
      id: randomUUID(),
      role: m.role,
      content: m.content,
      createdAt: m.createdAt,
      subAgentRunId: run.id,
    }));
    const owner = transcript.at(-1);
    try {
      await this.store.commitTurn(run.sessionId, {
        subAgentRuns: [
          {
            id: run.id,
            ...(parent ? { parentMessageId: parent.id } : {}),
            name: run.name,
            task: run.task,
            state: run.state,
            result: run.result,
            error: run.error,
            llmCalls: run.llmCalls,
            toolCalls: run.toolCalls,
            startedAt: run.startedAt,
            endedAt: run.endedAt,
          },
        ],
        subAgentMessages: transcript,
        toolCalls: owner ? run.calls.map((c) => runCallRow(c, run, owner.id)) : [],
      });
    } catch (err) {
      if (err instanceof StoreError && err.code === "NOT_FOUND" && !(await this.store.getSession(run.sessionId)))
        return; // deleted meanwhile
      throw err;
    }
  }

  async list(sessionId: string): Promise<RunSummary[]> {
    return (await this.store.listSubAgentRuns(sessionId)).map((r) => ({
      ...r,
      result: r.result ?? "",
      error: r.error ?? "",
      endedAt: r.endedAt ?? 0,
    }));
  }

  /** The Engine's store closes the connections. */
  async close(): Promise<void> {}
}

class PostgresStore implements EngineStore {
  private readonly contexts: ContextCache;

  constructor(
    private readonly store: PgStore,
    private readonly leases: LeaseKeeper,
    contextCacheChars = CONTEXT_CACHE_CHARS,
  ) {
    this.contexts = new ContextCache(contextCacheChars);
  }

  subAgentRuns(): SubAgentRunStore {
    return new PgRunStore(this.store);
  }

  describe(): string {
    return `${this.store.description} (engine ${this.leases.engineId}, lease ${String(this.leases.leaseMs / 1000)} s)`;
  }

  startLeases(address: string): Promise<void> {
    return this.leases.start(address);
  }

  /**
   * User messages committed with their turn's claim, by id: the turn's commit adds the rest, and
   * until then the Agent's context leaves them out (the turn sends its message itself).
   */
  private readonly started = new Map<string, MessageRecord>();

  async claimSession(sessionId: string, turn: { userMessageId: string; content: string; createdAt: number }) {
    const claim = await this.leases.claim(sessionId, turn);
    if (!claim.ok) return { ok: false as const, owner: describeOwner(claim.owner) };
    // Taken over from an Engine that died mid-turn: what it committed is read back from the database.
    if (claim.interrupted) this.contexts.delete(sessionId);
    this.started.set(turn.userMessageId, {
      id: turn.userMessageId,
      sessionId,
      role: "user",
      content: turn.content,
      createdAt: turn.createdAt,
      toolCalls: [],
      seq: 0,
    });
    return { ok: true as const };
  }

  private startedIn(sessionId: string): Set<string> {
    return new Set([...this.started.values()].filter((m) => m.sessionId === sessionId).map((m) => m.id));
  }

  finishTurn(sessionId: string): Promise<void> {
    return this.leases.finish(sessionId);
  }

  async sessionOwner(sessionId: string): Promise<string> {
    const o = await this.leases.otherOwner(sessionId);
    return o ? describeOwner(o) : "";
  }

  async createSession(s: SessionRecord): Promise<void> {
    await this.store.createSession({
      id: s.id,
      title: s.title,
      ...(s.title ? { titleSource: "user" as const } : {}),
      mode: s.mode === "heartbeat" ? "heartbeat" : "normal",
      workspace: s.workspace,
      model: s.model,
      modelChosen: s.modelChosen ?? false,
      createdAt: s.createdAt,
    });
  }

  async recordSessionModel(id: string, model: string): Promise<void> {
    await this.store.recordSessionModel(id, model);
  }

  async getSession(id: string): Promise<SessionRecord | undefined> {
    const s = await this.store.getSession(id);
    return s ? session(s) : undefined;
  }

  async listSessions(q: { limit: number; offset: number; sort: SessionSortKey; titleFilter?: string }) {
    const page = await this.store.listSessions(q);
    return { sessions: page.sessions.map(session), total: page.total };
  }

  async renameSession(id: string, title: string): Promise<SessionRecord | undefined> {
    try {
      return session(await this.store.renameSession(id, title));
    } catch (err) {
      if (err instanceof StoreError && err.code === "NOT_FOUND") return undefined;
      throw err;
    }
  }

  async setAutoTitle(id: string, title: string): Promise<boolean> {
    try {
      return await this.store.setAutoTitle(id, title, "auto");
    } catch (err) {
      if (err instanceof StoreError && err.code === "NOT_FOUND") return false;
      throw err;
    }
  }

  forget(sessionId: string): void {
    this.contexts.delete(sessionId);
  }

  cachedSessions(): number {
    return this.contexts.size;
  }

  async deleteSession(id: string): Promise<boolean> {
    const res = await this.store.deleteSession(id);
    this.contexts.delete(id);
    await Promise.all(res.artifactPaths.map((p) => rm(p, { force: true })));
    return res.deleted;
  }

  async applyRetention(q: { maxAgeDays?: number; maxBytes?: number }): Promise<RetentionOutcome> {
    const res = await this.store.applyRetention(q);
    for (const id of res.deletedSessions) this.contexts.delete(id);
    await Promise.all(res.artifactPaths.map((p) => rm(p, { force: true })));
    return { deletedSessions: res.deletedSessions, bytesBefore: res.bytesBefore, bytesAfter: res.bytesAfter };
  }

  /** `sync: false` as on SQLite: committed before this resolves, flushed with the next durable commit (the turn's). */
  async appendAudit(entries: AuditEntry[], opts: { sync?: boolean } = {}): Promise<void> {
    if (entries.length > 0) await this.store.appendAudits(entries.map(auditRow), { durable: opts.sync !== false });
  }

  async contextMessages(sessionId: string): Promise<MessageRecord[]> {
    const cached = this.contexts.get(sessionId);
    const inFlight = this.startedIn(sessionId);
    if (cached) {
      // Another Engine may have served the session since: the count tells.
      const s = await this.store.getSession(sessionId);
      if (s && s.messageCount === cached.length + inFlight.size) return [...cached];
    }
    const pages: StoredMessage[][] = [];
    let cursor = "";
    do {
      const page = await this.store.getHistory(sessionId, { limit: 1000, ...(cursor ? { cursor } : {}) });
      pages.unshift(page.messages);
      cursor = page.nextCursor;
    } while (cursor);
    const loaded = pages
      .flat()
      .map(message)
      .filter((m) => !inFlight.has(m.id));
    this.contexts.set(sessionId, loaded);
    return [...loaded];
  }

  async history(sessionId: string, q: { limit: number; cursor?: string }) {
    const page = await this.store.getHistory(
      sessionId,
      q.cursor ? { limit: q.limit, cursor: q.cursor } : { limit: q.limit },
    );
    return { messages: page.messages.map(message), nextCursor: page.nextCursor };
  }

  async commitTurn(t: TurnCommit): Promise<void> {
    const sid = t.session.id;
    // committed with the turn's claim, or now
    const early = this.started.get(t.user.id);
    const messages: NonNullable<TurnRows["messages"]> = early
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
    let committed;
    try {
      committed = await this.store.commitTurn(
        sid,
        {
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
        },
        { engineId: this.leases.engineId },
      );
    } catch (err) {
      if (audit.length === 0) throw err;
      // The turn's rows were rolled back with its audit entries; the calls those record did run.
      try {
        await this.store.appendAudits(audit);
      } catch (auditErr) {
        throw new Error(
          `${(err as Error).message}; its ${String(audit.length)} audit entries could not be written either: ${(auditErr as Error).message}`,
          { cause: err },
        );
      }
      throw err;
    }
    if (early) this.started.delete(t.user.id);
    const user = early
      ? [(await this.store.getMessage(t.user.id)) ?? undefined].filter((m) => m !== undefined).map(message)
      : [];
    this.contexts.append(sid, [...user, ...committed.messages.map(message)]);
  }

  async search(q: SearchQuery): Promise<{ hits: SearchHitRecord[]; total: number }> {
    const res = await this.store.search(q.query, searchOptions(q));
    return { hits: res.hits.map((h) => ({ ...h })), total: res.total };
  }

  async exportSession(id: string, format: "md" | "json") {
    if (!(await this.store.getSession(id))) return undefined;
    return this.store.exportSession(id, format);
  }

  countSessions(): Promise<number> {
    return this.store.countSessions();
  }

  countToolCallsSince(sinceMs: number): Promise<number> {
    return this.store.countToolCallsSince(sinceMs);
  }

  /**
   * The live seq of the last stored event (kept in its payload; token events are not stored, so
   * the row seq runs behind). A TURN_INTERRUPTED row another Engine wrote carries none: the
   * newest payload seq before it, plus the rows after it, continues the session's numbering.
   */
  async lastEventSeq(sessionId: string): Promise<number> {
    const last = await this.store.lastEvent(sessionId);
    if (!last) return 0;
    const recent = await this.store.listEvents(sessionId, Math.max(0, last.seq - 20), 20);
    for (let i = recent.length - 1; i >= 0; i--) {
      const e = recent[i] as (typeof recent)[number];
      try {
        const seq = Number((JSON.parse(e.payload) as { seq?: string | number }).seq);
        if (Number.isFinite(seq) && seq > 0) return seq + (last.seq - e.seq);
      } catch {
        // not JSON: try the row before
      }
    }
    return last.seq;
  }

  async saveMemory(entry: {
    sessionId: string;
    messageId: string;
    content: string;
    summary: string;
    compactedMessages: number;
  }): Promise<void> {
    await this.store.appendMemory(entry);
  }

  async memory(sessionId: string) {
    const list = await this.store.listMemory(sessionId);
    const last = [...list].reverse().find((m) => m.summary);
    return {
      facts: list.map((m) => m.content).filter(Boolean),
      summary: last?.summary ?? "",
      compactedMessages: last?.compactedMessages ?? 0,
    };
  }

  private closing: Promise<void> | undefined;

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.leases.close();
      await this.store.close();
    })();
    return this.closing;
  }
}

/**
 * Opens the PostgreSQL store of `store:` in the config, keys its audit chain with the
 * deployment's key file (the same file on every Engine), and prepares this Engine's leases.
 */
export async function openPostgresStore(
  cfg: StoreConfig,
  log: (line: string) => void = () => undefined,
  auditKeyFile?: string,
  options: { contextCacheChars?: number; env?: NodeJS.ProcessEnv; dataDir?: string } = {},
): Promise<EngineStore> {
  const onMigration = (step: MigrationStep): void =>
    log(
      step.phase === "start"
        ? `history: upgrading the PostgreSQL schema from v${String(step.from)} to v${String(step.to)}`
        : `history: PostgreSQL schema upgraded to v${String(step.to)} in ${(step.ms / 1000).toFixed(1)} s`,
    );
  const password = await storePassword(cfg, options.env, options.dataDir);
  const store = await PgStore.open({
    url: cfg.url,
    pool: cfg.pool,
    ...(password !== undefined ? { password } : {}),
    ...(cfg.tls ? { tls: cfg.tls } : {}),
    onMigration,
  });
  try {
    if (auditKeyFile !== undefined) await store.adoptAuditKey(await loadOrCreateKeySecret(auditKeyFile), auditKeyFile);
  } catch (err) {
    await store.close();
    throw err;
  }
  const leases = new LeaseKeeper(store, cfg.engineId ?? defaultEngineId(), cfg.leaseMs, log);
  return new PostgresStore(store, leases, options.contextCacheChars);
}
