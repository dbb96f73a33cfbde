// What bench/peers.mjs and bench/saturation.mjs share: a Palisade turn through the Engine that
// bench/lib/real-engine-child.mjs runs (their helper processes: bench/lib/child.mjs).
import { createClient } from "@palisade/protocol";
import { ClientService, PipelineEventType } from "@palisade/protocol/pipeline";

/**
 * A client of the Engine at `address`: `turn(sessionId)` makes one turn ("read x.txt": the model
 * calls files__read_file, then answers) in that session, or in a new one when it is undefined,
 * and resolves to the session's id.
 */
export function palisadeTurns(address, token) {
  const client = createClient(ClientService, address, { bearerToken: token });
  const turn = async (sessionId) => {
    let last;
    let id = sessionId;
    for await (const ev of client.sendMessage({ content: "read x.txt", sessionId: id ?? "" })) {
      last = ev;
      if (!id && ev.sessionId) id = ev.sessionId;
    }
    if (last?.eventType !== PipelineEventType.RESPONSE_COMPLETE)
      throw new Error(`palisade turn failed: ${last?.pipelineError?.message ?? "no RESPONSE_COMPLETE"}`);
    return id;
  };
  return { turn, close: () => client.close() };
}
