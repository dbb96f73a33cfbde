// The Engine's records as the store tests write them.
import { ZERO_USAGE } from "../../src/history/convert.js";
import type { SessionRecord, ToolCallRecordRow, TurnCommit } from "../../src/ports.js";

/** A new, empty normal session in /w. */
export const sessionRecord = (id: string): SessionRecord => ({
  id,
  title: "",
  mode: "normal",
  workspace: "/w",
  model: "",
  createdAt: 1,
  updatedAt: 1,
  messageCount: 0,
  usage: ZERO_USAGE,
});

/** A completed turn of `session`: the user's message u1 at `at`, the assistant's a1 (with `toolCalls`) after it. */
export const completedTurn = (
  session: SessionRecord,
  text: { user: string; assistant: string },
  toolCalls: ToolCallRecordRow[],
  at: number,
): TurnCommit => ({
  session,
  status: "completed",
  user: { id: "u1", content: text.user, createdAt: at },
  assistant: { id: "a1", content: text.assistant, createdAt: at + 1, usage: ZERO_USAGE },
  toolCalls,
  events: [],
});
