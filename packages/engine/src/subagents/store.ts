// Where finished runs go: the session's SQLite database (a run row linked to the parent session
// and message, its transcript and its tool calls with verdicts), or memory for tests.
import { Store } from "@palisade/store";
import { runCallRow } from "../adapters/store-rows.js";
import type { RunSummary, StoredRun, SubAgentRunStore } from "../ports.js";

export class MemoryRunStore implements SubAgentRunStore {
  readonly runs: StoredRun[] = [];

  async save(run: StoredRun): Promise<void> {
    this.runs.push(run);
  }

  async list(sessionId: string): Promise<RunSummary[]> {
    return this.runs.filter((r) => r.sessionId === sessionId);
  }

  async close(): Promise<void> {}
}

/**
 * Runs in the Engine's SQLite file. It opens its own connection to the file (same process, WAL),
 * because the Engine's store port has no sub-agent methods yet; one transaction per run.
 */
export class SqliteRunStore implements SubAgentRunStore {
  private store: Store | undefined;

  constructor(private readonly path: string) {}

  private open(): Store {
    this.store ??= Store.open(this.path);
    return this.store;
  }

  async save(run: StoredRun): Promise<void> {
    const store = this.open();
    store.transaction(() => {
      if (!store.getSession(run.sessionId)) return; // deleted meanwhile
      const parent = store.getMessage(run.parentMessageId) ?? store.getMessage(run.parentUserMessageId);
      store.recordSubAgentRun({
        id: run.id,
        sessionId: run.sessionId,
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
      });
      const messages = run.transcript.map((m) =>
        store.appendMessage({
          sessionId: run.sessionId,
          role: m.role,
          content: m.content,
          createdAt: m.createdAt,
          subAgentRunId: run.id,
        }),
      );
      const owner = messages.at(-1);
      if (owner) for (const c of run.calls) store.recordToolCall(runCallRow(c, run, owner.id));
    });
  }

  async list(sessionId: string): Promise<RunSummary[]> {
    return this.open()
      .listSubAgentRuns(sessionId)
      .map((r) => ({ ...r, result: r.result ?? "", error: r.error ?? "", endedAt: r.endedAt ?? 0 }));
  }

  async close(): Promise<void> {
    this.store?.close();
    this.store = undefined;
  }
}
