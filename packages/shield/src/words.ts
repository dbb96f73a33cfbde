// The words a person reads for a decision and for an approval, in one place: the CLI's run,
// sessions and capability commands, the chat's tool cards and the history views use them.
import type { Decision } from "./types.js";

/** A Shield decision as printed: `shield ALLOW (tier 0) …`. */
export const DECISION_WORD: Readonly<Record<Decision, string>> = {
  allow: "ALLOW",
  block: "BLOCK",
  escalate: "ESCALATE",
};

/** A person's answer to an approval. */
export type ApprovalChoice = "allow_once" | "allow_session" | "deny";

export const APPROVAL_WORD: Readonly<Record<ApprovalChoice, string>> = {
  allow_once: "allowed once",
  allow_session: "allowed for this session",
  deny: "denied",
};

/**
 * How an approval is kept in the history (`allow_once`, `allow_session`, `deny`, or what settled
 * it instead of the person), as the answer it amounts to and who gave it ("" for the person).
 */
export const STORED_APPROVAL: Readonly<Record<string, { choice: ApprovalChoice; by: string }>> = {
  allow_once: { choice: "allow_once", by: "" },
  allow_session: { choice: "allow_session", by: "" },
  deny: { choice: "deny", by: "" },
  session: { choice: "allow_once", by: "covered by an earlier approval for this session" },
  cancelled: { choice: "deny", by: "the turn was cancelled before an answer" },
  unattended: { choice: "deny", by: "nobody was there to answer" },
  timeout: { choice: "deny", by: "no answer in time" },
};

/** A stored approval; one written by an older version is read by its words. */
export function storedApproval(text: string): { choice: ApprovalChoice; by: string } | undefined {
  if (!text) return undefined;
  const known = STORED_APPROVAL[text];
  if (known) return known;
  const t = text.toLowerCase();
  const choice: ApprovalChoice =
    t.includes("deny") || t.includes("denied") || t.includes("timeout")
      ? "deny"
      : t.includes("session")
        ? "allow_session"
        : "allow_once";
  return { choice, by: text };
}

/** A stored approval as a line reads it (one this version does not know, as stored). */
export function storedApprovalWords(text: string): string {
  const a = storedApproval(text);
  return a ? approvalWords(a) : text;
}

/** An approval as a line reads it: `allowed once`, `denied (no answer in time)`. */
export function approvalWords(a: { choice: ApprovalChoice; by: string }): string {
  const by = a.by && a.by !== "user" && a.by !== "you" ? ` (${a.by})` : "";
  return `${APPROVAL_WORD[a.choice]}${by}`;
}
