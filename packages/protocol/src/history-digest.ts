// The digest that ties a ProcessRequest's `history_base` to the copy of the conversation the Agent
// holds. Both ends compute it the same way over the batches of messages the Engine sent under one
// `history_generation`: chain(d, batch) = hex SHA-256 of d, a newline, and the batch as canonical
// JSON. The first batch chains from "". An Agent whose chain differs from `history_digest` asks for
// the whole conversation instead of guessing (docs/protocol.md).
import { createHash } from "node:crypto";

/** A ContextMessage, as a message or as its init shape (unset fields are empty). */
export interface DigestibleMessage {
  role?: string;
  content?: string;
  toolCallId?: string;
  toolCalls?: readonly { id?: string; name?: string; argumentsJson?: string }[];
}

/** The chain digest after `batch` is appended to a copy whose digest is `previous`. */
export function chainHistoryDigest(previous: string, batch: readonly DigestibleMessage[]): string {
  const canonical = batch.map((m) => [
    m.role ?? "",
    m.content ?? "",
    m.toolCallId ?? "",
    (m.toolCalls ?? []).map((c) => [c.id ?? "", c.name ?? "", c.argumentsJson ?? ""]),
  ]);
  return createHash("sha256").update(previous).update("\n").update(JSON.stringify(canonical)).digest("hex");
}
