// Child processes of bench/engine.mjs: the transport floors, Palisade's hops on the same gRPC
// bridge with no work at any of them (no Shield, no SQLite, no validation, no context).
// argv[2]:
//   "engine" [no-op capability address] — the relay: SendMessage becomes a ProcessRequest on the
//        connected agent's RunSession stream; the agent's tokens and the end of its turn go back
//        to the client; a load_tools proposal is answered at once, any other is one
//        Capability.Invoke of the no-op capability. Sends its address over IPC.
//   "agent" <relay address> <model base URL> — the LLM loop with the openai SDK as the Agent runs
//        it: per turn the SDK's model calls and a tool proposal for each tool call (benchmark 3);
//   "echo-agent" <relay address> — answers each ProcessRequest with one token (benchmark 2).
// Every role stops when its parent disconnects.
import OpenAI from "openai";
import { AsyncQueue, createClient, RpcServer } from "@palisade/protocol";
import { AgentService, ClientService, PipelineEventType } from "@palisade/protocol/pipeline";
import { Capability } from "@palisade/protocol/capability";
import { StreamAccumulator } from "@palisade/agent";

const enc = new TextEncoder();
const dec = new TextDecoder();
process.on("disconnect", () => process.exit(0));

if (process.argv[2] === "echo-agent") {
  const call = createClient(AgentService, process.argv[3]).runSession();
  await call.send({ event: { case: "ready", value: { agentId: "echo" } } });
  for await (const d of call) {
    if (d.directive.case !== "process") continue;
    const { sessionId, messageId } = d.directive.value;
    await call.send({ event: { case: "llmTokenEmitted", value: { sessionId, messageId, text: "hello" } } });
    await call.send({ event: { case: "responseComplete", value: { sessionId, messageId, content: "hello" } } });
  }
} else if (process.argv[2] === "agent") {
  const [relay, baseURL] = process.argv.slice(3);
  const openai = new OpenAI({ baseURL, apiKey: "sk-bench", maxRetries: 0 });
  const call = createClient(AgentService, relay).runSession();
  const results = new Map();
  let n = 0;
  const propose = (sessionId, messageId, name, args) =>
    new Promise((resolve) => {
      const callId = `c${++n}`;
      results.set(callId, resolve);
      void call.send({
        event: { case: "toolProposal", value: { sessionId, messageId, callId, toolName: name, argumentsJson: args } },
      });
    });
  const turn = async ({ sessionId, messageId, content }) => {
    const messages = [{ role: "user", content }];
    for (;;) {
      const stream = await openai.chat.completions.create({ model: "scripted-model", stream: true, messages });
      // The Agent's own folding of streamed chunks (tool-call fragments joined by index).
      const acc = new StreamAccumulator();
      for await (const chunk of stream)
        acc.add(
          chunk,
          (text) => void call.send({ event: { case: "llmTokenEmitted", value: { sessionId, messageId, text } } }),
        );
      const { content: text, toolCalls: calls } = acc.result();
      if (calls.length === 0) {
        await call.send({ event: { case: "responseComplete", value: { sessionId, messageId, content: text } } });
        return;
      }
      messages.push({
        role: "assistant",
        tool_calls: calls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      });
      for (const c of calls)
        messages.push({
          role: "tool",
          tool_call_id: c.id,
          content: await propose(sessionId, messageId, c.name, c.arguments),
        });
    }
  };
  await call.send({ event: { case: "ready", value: { agentId: "hops" } } });
  for await (const d of call) {
    if (d.directive.case === "process") void turn(d.directive.value);
    else if (d.directive.case === "toolResult") {
      results.get(d.directive.value.callId)?.(d.directive.value.content);
      results.delete(d.directive.value.callId);
    }
  }
} else {
  const capability = process.argv[3] ? createClient(Capability, process.argv[3]) : undefined;
  const toAgent = new AsyncQueue();
  const turns = new Map();
  let n = 0;
  const server = new RpcServer()
    .add(AgentService, {
      async *runSession(events) {
        void (async () => {
          for await (const ev of events) {
            const { case: kind, value } = ev.event;
            const out = turns.get(value?.messageId);
            if (!out) continue;
            if (kind === "llmTokenEmitted")
              out.push({
                sessionId: value.sessionId,
                messageId: value.messageId,
                eventType: PipelineEventType.LLM_TOKEN,
                llmToken: { text: value.text },
              });
            else if (kind === "responseComplete") {
              out.push({
                sessionId: value.sessionId,
                messageId: value.messageId,
                eventType: PipelineEventType.RESPONSE_COMPLETE,
                responseComplete: { content: value.content },
              });
              out.end();
            } else if (kind === "toolProposal") {
              const reply = (content) =>
                toAgent.push({
                  directive: {
                    case: "toolResult",
                    value: { callId: value.callId, content, sessionId: value.sessionId, messageId: value.messageId },
                  },
                });
              if (value.toolName === "load_tools") reply("Loaded files: files__read_file.");
              else if (!capability) reply("no capability configured");
              else
                void capability
                  .invoke({ toolName: "noop", argsJson: enc.encode(value.argumentsJson) })
                  .then((r) => reply(dec.decode(r.resultJson)));
            }
          }
        })();
        yield* toAgent;
      },
    })
    .add(ClientService, {
      ...Object.fromEntries(
        ClientService.methods.map((m) => [m.localName, () => Promise.reject(new Error("not part of the relay"))]),
      ),
      async *sendMessage(req) {
        const messageId = `m${++n}`;
        const out = new AsyncQueue();
        turns.set(messageId, out);
        toAgent.push({
          directive: { case: "process", value: { sessionId: `s${n}`, messageId, content: req.content } },
        });
        yield* out;
        turns.delete(messageId);
      },
    });
  process.send(await server.listen(`unix:/tmp/palisade-relay-${process.pid}.sock`));
}
