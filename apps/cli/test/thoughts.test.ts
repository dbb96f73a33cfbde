import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { PipelineEventSchema, PipelineEventType } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { EventFactory } from "./fake/events.js";
import { ev, run, sent } from "./state.js";

const thought = (stage: string, text: string): PipelineEvent =>
  create(PipelineEventSchema, {
    sessionId: "s-1",
    messageId: "m-1",
    eventType: PipelineEventType.THOUGHT,
    thought: { stage, text },
  });

describe("live thoughts", () => {
  it("reasoning streams into one dimmed entry before the answer, and both are kept", () => {
    const e = new EventFactory("s-1", "m-1");
    const mid = run(sent().state, [
      ev(e.accepted()),
      ev(thought("reasoning", "Let me ")),
      ev(thought("reasoning", "think.")),
    ]);
    expect(mid.state.live).toEqual([
      expect.objectContaining({ kind: "thought", text: "Let me think.", streaming: true }),
    ]);
    const { state } = run(mid.state, [ev(e.token("Answer.")), ev(e.complete("Answer."))]);
    expect(state.committed.slice(-2)).toEqual([
      expect.objectContaining({ kind: "thought", text: "Let me think.", streaming: false }),
      expect.objectContaining({ kind: "assistant", text: "Answer." }),
    ]);
  });

  it("a notice (rate limit, tools unavailable) shows as a warning line", () => {
    const e = new EventFactory("s-1", "m-1");
    const { state } = run(sent().state, [
      ev(e.accepted()),
      ev(thought("notice", "Rate limited by the model server, retrying in 3 s")),
    ]);
    expect([...state.committed, ...state.live].at(-1)).toMatchObject({
      kind: "notice",
      level: "warn",
      text: "Rate limited by the model server, retrying in 3 s",
    });
  });
});
