// spawn_agent with wait=true: the main Agent gets the sub-agent's result in the same tool call;
// the sub-agent's tool call runs through the pipeline in the parent session; the run is stored.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Store } from "@palisade/store";
import { T, ask, fromAgent, fromSubAgent, loadAgentsRule, startLab, subAgentEvents } from "./harness.js";
import type { Lab } from "./harness.js";

describe("spawn_agent with wait", () => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab([
      loadAgentsRule,
      {
        match: { toolResult: /Loaded/, when: fromAgent },
        reply: { toolCalls: [{ name: "spawn_agent", arguments: { task: "Count to three and note it", tool_groups: ["lab"], wait: true } }] },
      },
      { match: { role: "user", when: fromSubAgent }, reply: { toolCalls: [{ name: "lab__note", arguments: { text: "1 2 3" } }] } },
      { match: { toolResult: /noted/, when: fromSubAgent }, reply: { content: "one, two, three" } },
      { match: { toolResult: /"state":"completed"/, when: fromAgent }, reply: { content: "The sub-agent counted: one, two, three." } },
    ]);
  });
  afterAll(async () => lab?.close());

  it("returns the result in the same call, reports lifecycle events and stores the run", async () => {
    const events = await ask(lab, "Please delegate counting");
    const done = events.at(-1);
    expect(done?.eventType).toBe(T.RESPONSE_COMPLETE);
    expect(done?.responseComplete?.content).toBe("The sub-agent counted: one, two, three.");
    const sessionId = done?.sessionId ?? "";

    const spawnResult = events.find((e) => e.eventType === T.ACTION_COMPLETED && e.actionCompleted?.toolName === "spawn_agent");
    expect(spawnResult?.actionCompleted?.success).toBe(true);
    const sub = subAgentEvents(events);
    expect(sub[0]?.eventType).toBe(T.SUB_AGENT_SPAWNED);
    const name = sub[0]?.subAgent?.name ?? "";
    expect(name).toMatch(/^[a-z]+$/);
    expect(sub.some((e) => e.eventType === T.SUB_AGENT_PROGRESS)).toBe(true);
    const completed = sub.find((e) => e.eventType === T.SUB_AGENT_COMPLETED);
    expect(completed?.subAgent).toMatchObject({ name, state: "completed", resultExcerpt: "one, two, three", toolCalls: 1 });
    expect(completed?.subAgent?.llmCalls).toBe(2);

    // The sub-agent's call went through the Shield and the capability, tagged with its name.
    const note = events.find((e) => e.eventType === T.ACTION_COMPLETED && e.actionCompleted?.toolName === "lab__note");
    expect(note?.actionCompleted).toMatchObject({ success: true, subAgentName: name });
    expect(note?.actionCompleted?.resultSummary).toContain('"key_present":true');
    expect(events.some((e) => e.eventType === T.SHIELD_VERDICT && e.shieldVerdict?.toolName === "lab__note")).toBe(true);

    const listed = await lab.client.listSubAgents({ sessionId });
    expect(listed.agents.map((a) => [a.name, a.state])).toEqual([[name, "completed"]]);

    await lab.engine.stop(2000);
    const store = Store.open(join(lab.engine.dataDir, "palisade.db"), { readonly: true });
    try {
      const runs = store.listSubAgentRuns(sessionId);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ name, state: "completed", result: "one, two, three", toolCalls: 1, parentMessageId: done?.messageId });
      const transcript = store.getSubAgentTranscript(runs[0]?.id ?? "");
      expect(transcript.map((m) => m.role)).toEqual(["user", "assistant"]);
      const call = transcript.at(-1)?.toolCalls[0];
      expect(call).toMatchObject({ toolName: "lab__note", subAgentName: name });
      expect(call?.verdict?.decision).toBe("allow");
    } finally {
      store.close();
    }
  });
});
