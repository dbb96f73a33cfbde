// `sessions show`: each tool call with its verdict and the provenance label its result got.
import { create } from "@bufbuild/protobuf";
import { ChatMessageSchema } from "@palisade/protocol/types";
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
});
