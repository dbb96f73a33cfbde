// A tool call the main Agent proposed in a turn: it runs through the Engine's one call path
// (calls/), and its result goes back to the Agent on the turn's stream.
import type { ToolCallProposed } from "@palisade/protocol/pipeline";
import { runToolCall } from "../calls/index.js";
import type { TurnEnv } from "./env.js";
import type { Turn } from "../history/turn.js";

/** Runs one proposal of the Agent; never throws. */
export async function runTurnToolCall(env: TurnEnv, turn: Turn, proposal: ToolCallProposed): Promise<void> {
  await runToolCall(
    {
      env,
      turn,
      onResult: (r) => {
        env.link.send({
          directive: {
            case: "toolResult",
            value: {
              callId: r.callId,
              content: r.content,
              isError: r.isError,
              sessionId: turn.session.id,
              messageId: turn.messageId,
              terminal: r.terminal,
            },
          },
        });
      },
    },
    { callId: proposal.callId, toolName: proposal.toolName, argumentsJson: proposal.argumentsJson },
  );
}
