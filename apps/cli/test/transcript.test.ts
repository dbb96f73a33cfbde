// `sessions show`: each tool call with its verdict and the provenance label its result got.
import { create } from "@bufbuild/protobuf";
import { ChatMessageSchema, VerdictDecision } from "@palisade/protocol/types";
import { describe, expect, it } from "vitest";
import { formatTranscript } from "../src/commands/sessions.js";

describe("formatTranscript", () => {
  it("shows the label of each delivered result, and none for calls stored without one", () => {
    const m = create(ChatMessageSchema, {
      role: "assistant",
      content: "done",
      toolCalls: [
        { callId: "c1", toolName: "web__fetch", argumentsJson: "{}", result: "News.", resultTrust: "untrusted" },
        { callId: "c2", toolName: "files__read_file", argumentsJson: "{}", result: "old" },
      ],
    });
    const out = formatTranscript([m]);
    expect(out).toContain("→ News. · labelled untrusted");
    expect(out).toContain("→ old\n");
  });

  it("says the Shield's decision and who settled the approval in words, not stored names", () => {
    const verdict = { decision: VerdictDecision.ESCALATE, tier: 0, reason: "writes" };
    const m = create(ChatMessageSchema, {
      role: "assistant",
      content: "done",
      toolCalls: [
        { callId: "c1", toolName: "files__write_file", argumentsJson: "{}", verdict, approval: "allow_once" },
        { callId: "c2", toolName: "files__write_file", argumentsJson: "{}", verdict, approval: "session" },
        { callId: "c3", toolName: "files__write_file", argumentsJson: "{}", verdict, approval: "timeout" },
        { callId: "c4", toolName: "files__write_file", argumentsJson: "{}", approval: "deny" },
      ],
    });
    const lines = formatTranscript([m])
      .split("\n")
      .filter((l) => l.includes("[tool]"));
    expect(lines).toEqual([
      "  [tool] files__write_file {} · shield ESCALATE tier 0: writes · approval allowed once",
      "  [tool] files__write_file {} · shield ESCALATE tier 0: writes · approval allowed once (covered by an earlier approval for this session)",
      "  [tool] files__write_file {} · shield ESCALATE tier 0: writes · approval denied (no answer in time)",
      "  [tool] files__write_file {} · approval denied",
    ]);
  });
});
