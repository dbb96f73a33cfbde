// A tool call a client asks for (ClientService.CallTool, `palisade capability call`): it takes the
// same path as a model's call (runToolCall), in a session, audited, its approvals asked of the
// session's clients. Its events and then its result stream back to the caller.
import { randomUUID } from "node:crypto";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { AsyncQueue, Code, RpcError } from "@palisade/protocol";
import type { CallToolRequest, CallToolResponseSchema } from "@palisade/protocol/pipeline";
import { artifactToProto, verdictToProto } from "../history/convert.js";
import type { SessionRecord } from "../ports.js";
import { Turn } from "../history/turn.js";
import { runToolCall } from "./run.js";
import type { CallEnv } from "./scope.js";

type CallToolResponseInit = MessageInitShape<typeof CallToolResponseSchema>;

export interface ClientCallDeps {
  env: CallEnv;
  /** The credential that asked, for the audit trail (token id and transport). */
  caller: string;
  session(id: string): Promise<SessionRecord | undefined>;
  newSession(workspace: string | undefined): Promise<SessionRecord>;
}

export async function* callToolForClient(
  d: ClientCallDeps,
  req: CallToolRequest,
  signal: AbortSignal,
): AsyncIterable<CallToolResponseInit> {
  if (!req.toolName)
    throw new RpcError(
      Code.INVALID_ARGUMENT,
      "tool_name is required: give <capability>__<tool> (see `palisade capability list`)",
    );
  const session = req.sessionId ? await d.session(req.sessionId) : await d.newSession(req.workspace || undefined);
  if (!session)
    throw new RpcError(
      Code.NOT_FOUND,
      `session ${req.sessionId} does not exist: omit it for a new session, or pick one from \`palisade sessions\``,
    );
  // The call's own turn in the session: its signal is the caller's, its events go to the
  // session's watchers and to this stream.
  const turn = new Turn(session, `call_${randomUUID()}`, "", "", Date.now(), "");
  turn.state = "running";
  const onAbort = (): void => turn.abort.abort(new Error("the client went away"));
  signal.addEventListener("abort", onAbort, { once: true });
  const out = new AsyncQueue<CallToolResponseInit>();
  const callId = `cli_${randomUUID()}`;
  void runToolCall(
    {
      env: d.env,
      turn,
      proposer: `client (${d.caller})`,
      emit: (init) => {
        const ev = turn.emit(d.env.bus, init);
        out.push({ payload: { case: "event", value: ev } });
        return ev;
      },
    },
    { callId, toolName: req.toolName, argumentsJson: req.argumentsJson },
  ).then(async (r) => {
    // What it did is on record before the caller hears the result.
    await d.env.audit?.flush();
    const record = turn.toolCalls[0];
    out.push({
      payload: {
        case: "result",
        value: {
          callId,
          toolName: record?.toolName ?? req.toolName,
          content: r.content,
          isError: r.isError,
          errorCode: r.error?.code ?? "",
          errorMessage: r.error?.message ?? "",
          artifacts: (record?.artifacts ?? []).map(artifactToProto),
          ...(record?.verdict ? { verdict: verdictToProto(callId, record.toolName, record.verdict) } : {}),
          ran: r.ran,
          sessionId: session.id,
        },
      },
    });
    out.end();
  });
  try {
    yield* out;
  } finally {
    signal.removeEventListener("abort", onAbort);
    turn.markDone();
  }
}
