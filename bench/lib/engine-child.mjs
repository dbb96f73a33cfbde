// Child process of bench/engine.mjs: an Engine whose Agent is the benchmark itself (external,
// token "bench"), calling the no-op capability at argv[2] (its own process, bench/lib/noop-capability.mjs),
// and the baseline's bidi echo on AgentService on the same bridge.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RpcServer } from "@palisade/protocol";
import { AgentService } from "@palisade/protocol/pipeline";
import { startEngine } from "@palisade/engine";
import { defaultConfig } from "@palisade/config";

const dir = mkdtempSync(join(tmpdir(), "pal-bench-eng-"));
const noopAddress = process.argv[2];
writeFileSync(
  join(dir, "noop.yaml"),
  "id: noop\nclass: tool\ntools:\n  - name: noop\n    description: Does nothing.\n    input_schema: { type: object }\n    recommended_policy: allow\n",
);
// The default policy allows 240 evaluations per minute per session; a benchmark makes thousands.
writeFileSync(
  join(dir, "policy.yaml"),
  "version: 1\nname: bench\ndescription: bench\ndefaults:\n  unknown_tool: ask\n  tools:\n    load_tools: allow\nrate_limit:\n  per_minute: 1000000\nrules: []\n",
);
const config = defaultConfig();
config.shield.policyFile = join(dir, "policy.yaml");
config.model.baseUrl = "http://127.0.0.1:9/v1";
config.capabilities = ["files", "shell", "http", "documents", "mail"].map((id) => ({ id, enabled: false }));
config.capabilities.push({ id: "noop", manifest: join(dir, "noop.yaml"), address: noopAddress });
const engine = await startEngine({
  dataDir: join(dir, "data"),
  config,
  env: {},
  auditKeyFile: join(dir, "audit.key"),
  workspace: dir,
  agent: { external: { token: "bench" } },
  log: () => {},
});

const baseline = new RpcServer().add(AgentService, {
  async *runSession(events) {
    for await (const ev of events)
      yield { directive: { case: "toolResult", value: { callId: ev.event.value?.callId ?? "", content: "{}" } } };
  },
});
const baselineAddr = await baseline.listen("127.0.0.1:0");
process.send({ engine: engine.address, token: engine.bearerToken, baseline: baselineAddr });
process.on("disconnect", () => {
  void engine.stop(500).then(() => process.exit(0));
});
