// Child processes of bench/engine.mjs: the transport floor of time to first token, the same four
// hops Palisade makes (client → Engine → Agent → Engine → client) on the same gRPC bridge, with
// no work at each hop. argv[2]:
//   "engine" — ClientService.SendMessage relays the content to the connected "agent" over
//              AgentService.RunSession and streams back the first event it answers with;
//   "agent"  — connects to the engine (argv[3]) and answers each ProcessRequest with one token.
import { AsyncQueue, createClient, RpcServer } from "@palisade/protocol";
import { AgentService, ClientService, PipelineEventType } from "@palisade/protocol/pipeline";

if (process.argv[2] === "agent") {
  const call = createClient(AgentService, process.argv[3]).runSession();
  await call.send({ event: { case: "ready", value: { agentId: "relay" } } });
  for await (const d of call) {
    if (d.directive.case === "process") {
      const { sessionId, messageId } = d.directive.value;
      await call.send({ event: { case: "llmTokenEmitted", value: { sessionId, messageId, text: "hello" } } });
    }
  }
} else {
  const toAgent = new AsyncQueue();
  const waiting = new Map();
  let n = 0;
  const server = new RpcServer()
    .add(AgentService, {
      async *runSession(events) {
        void (async () => {
          for await (const ev of events) {
            if (ev.event.case === "llmTokenEmitted") waiting.get(ev.event.value.messageId)?.(ev.event.value.text);
          }
        })();
        yield* toAgent;
      },
    })
    .add(ClientService, {
      ...Object.fromEntries(ClientService.methods.map((m) => [m.localName, () => Promise.reject(new Error("not part of the relay"))])),
      async *sendMessage(req) {
        const messageId = `m${++n}`;
        const token = new Promise((resolve) => waiting.set(messageId, resolve));
        toAgent.push({ directive: { case: "process", value: { sessionId: "s", messageId, content: req.content } } });
        const text = await token;
        waiting.delete(messageId);
        yield { sessionId: "s", messageId, eventType: PipelineEventType.LLM_TOKEN, llmToken: { text } };
      },
    });
  process.send(await server.listen(`unix:/tmp/palisade-relay-${process.pid}.sock`));
  process.on("disconnect", () => process.exit(0));
}
