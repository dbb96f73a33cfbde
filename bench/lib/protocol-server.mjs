// Child process for bench/protocol.mjs: one server through the bridge, one raw grpc-js server.
import * as grpc from "@grpc/grpc-js";
import { RpcServer, toServiceDefinition } from "@palisade/protocol";
import { AgentService } from "@palisade/protocol/pipeline";
import { Capability } from "@palisade/protocol/capability";

const bridged = new RpcServer()
  .add(Capability, {
    async invoke(req) {
      return { resultJson: req.argsJson };
    },
    async *streamInvoke() {},
    async healthcheck() {
      return { ready: true };
    },
    async uploadInputArtifact() {
      return {};
    },
    async *downloadOutputArtifact() {},
  })
  .add(AgentService, {
    async *runSession(events) {
      let n = 0;
      for await (const _ of events) n++;
      yield { directive: { case: "shutdown", value: { reason: String(n) } } };
    },
  });
const bridgedAddr = await bridged.listen("127.0.0.1:0");

// Raw grpc-js with default options, same generated (de)serializers.
const raw = new grpc.Server();
const capDef = toServiceDefinition(Capability);
const agentDef = toServiceDefinition(AgentService);
raw.addService(capDef, {
  invoke: (call, cb) =>
    cb(null, { $typeName: "selu.capability.v1.InvokeResponse", resultJson: call.request.argsJson, error: "" }),
  streamInvoke: (call) => call.end(),
  healthcheck: (_c, cb) => cb(null, { $typeName: "selu.capability.v1.HealthResponse", ready: true, message: "" }),
  uploadInputArtifact: (_c, cb) => cb(null, {}),
  downloadOutputArtifact: (call) => call.end(),
});
raw.addService(agentDef, {
  runSession: (call) => {
    let n = 0;
    call.on("data", () => n++);
    call.on("end", () => {
      call.write({
        $typeName: "palisade.v1.EngineDirective",
        directive: { case: "shutdown", value: { $typeName: "palisade.v1.ShutdownDirective", reason: String(n) } },
      });
      call.end();
    });
  },
});
const rawPort = await new Promise((res, rej) =>
  raw.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))),
);
process.send({ bridged: bridgedAddr, raw: `127.0.0.1:${rawPort}` });
process.on("disconnect", () => process.exit(0));
