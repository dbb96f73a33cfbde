// The history read straight from the data directory's database, read-only, for when no Engine
// can start (a broken policy or config file): reading what was said must not depend on what the
// Engine needs to act. It answers the three read calls of ClientService the way the Engine does.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  GetHistoryResponseSchema,
  ListSessionsResponseSchema,
  SearchSessionsResponseSchema,
} from "@palisade/protocol/pipeline";
import type {
  GetHistoryRequestSchema,
  GetHistoryResponse,
  ListSessionsRequestSchema,
  ListSessionsResponse,
  SearchSessionsRequestSchema,
  SearchSessionsResponse,
} from "@palisade/protocol/pipeline";
import { ChatMessageSchema, SessionInfoSchema, SessionMode } from "@palisade/protocol/types";
import type { ChatMessage, SessionInfo } from "@palisade/protocol/types";
import type { MessageRecord, SessionRecord, Store } from "@palisade/store";
import type { EngineClient } from "./connect.js";
import { decisionToProto } from "../format/decision.js";

/** The read calls a history command makes; the Engine's client, or this reader. */
export type HistoryClient = Pick<EngineClient, "listSessions" | "getHistory" | "searchSessions">;

function sessionInfo(s: SessionRecord): SessionInfo {
  return create(SessionInfoSchema, {
    id: s.id,
    title: s.title,
    mode: s.mode === "heartbeat" ? SessionMode.HEARTBEAT : SessionMode.NORMAL,
    createdAtUnixMs: BigInt(s.createdAt),
    updatedAtUnixMs: BigInt(s.updatedAt),
    messageCount: s.messageCount,
    workspace: s.workspace,
    model: s.model,
  });
}

function chatMessage(m: MessageRecord): ChatMessage {
  return create(ChatMessageSchema, {
    id: m.id,
    sessionId: m.sessionId,
    role: m.role,
    content: m.content,
    createdAtUnixMs: BigInt(m.createdAt),
    seq: BigInt(m.seq),
    toolCalls: m.toolCalls.map((c) => ({
      callId: c.callId,
      toolName: c.toolName,
      argumentsJson: c.argumentsJson,
      approval: c.approval?.decision ?? "",
      result: c.result ?? "",
      isError: c.isError,
      durationMs: BigInt(c.durationMs ?? 0),
      subAgentName: c.subAgentName,
      textOffset: c.textOffset,
      ...(c.verdict
        ? {
            verdict: {
              callId: c.callId,
              toolName: c.toolName,
              decision: decisionToProto(c.verdict.decision),
              tier: c.verdict.tier,
              reason: c.verdict.reason,
            },
          }
        : {}),
    })),
  });
}

export interface LocalHistory {
  client: HistoryClient;
  database: string;
  close(): void;
}

/**
 * The database of `dataDir` opened read-only, or undefined when there is none or it cannot be
 * read either (a damaged file: why the Engine did not start is then the whole answer).
 */
export async function openLocalHistory(dataDir: string): Promise<LocalHistory | undefined> {
  const database = join(dataDir, "palisade.db");
  if (!existsSync(database)) return undefined;
  const { Store: StoreClass } = await import("@palisade/store");
  let store: Store;
  try {
    store = StoreClass.open(database, { readonly: true });
  } catch {
    return undefined;
  }
  try {
    store.listSessions({ limit: 1 });
  } catch {
    store.close();
    return undefined;
  }
  const client: HistoryClient = {
    listSessions: async (req: MessageInitShape<typeof ListSessionsRequestSchema>): Promise<ListSessionsResponse> => {
      const page = store.listSessions({
        limit: Math.min(req.limit || 50, 1000),
        offset: req.offset ?? 0,
        ...(req.titleFilter ? { titleFilter: req.titleFilter } : {}),
      });
      return create(ListSessionsResponseSchema, { sessions: page.sessions.map(sessionInfo), total: page.total });
    },
    getHistory: async (req: MessageInitShape<typeof GetHistoryRequestSchema>): Promise<GetHistoryResponse> => {
      const id = req.sessionId ?? "";
      const session = store.getSession(id);
      if (!session) throw new Error(`session ${id} does not exist in ${database}`);
      const page = store.getHistory(id, {
        limit: Math.min(req.limit || 50, 1000),
        ...(req.cursor ? { cursor: req.cursor } : {}),
      });
      return create(GetHistoryResponseSchema, {
        messages: page.messages.map(chatMessage),
        nextCursor: page.nextCursor,
        session: sessionInfo(session),
      });
    },
    searchSessions: async (
      req: MessageInitShape<typeof SearchSessionsRequestSchema>,
    ): Promise<SearchSessionsResponse> => {
      const res = store.search(req.query ?? "", {
        limit: Math.min(req.limit || 20, 200),
        offset: req.offset ?? 0,
        ...(req.sessionId ? { sessionId: req.sessionId } : {}),
      });
      return create(SearchSessionsResponseSchema, {
        total: res.total,
        hits: res.hits.map((h) => ({ ...h, createdAtUnixMs: BigInt(h.createdAt), seq: BigInt(h.seq) })),
      });
    },
  };
  return { client, database, close: () => store.close() };
}
