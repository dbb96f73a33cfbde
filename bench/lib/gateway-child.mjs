// Child process of bench/gateway.mjs: the Engine's model gateway alone, in its own process as in
// the Engine, forwarding to the scripted model at argv[2]. Sends its socket path, stops when its
// parent disconnects.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ModelGateway } from "@palisade/engine";

const dir = mkdtempSync(join(tmpdir(), "palisade-bench-gw-"));
const gateway = new ModelGateway({
  authorize: (credential) => (credential === "bench-credential" ? { kind: "agent" } : undefined),
  model: () => ({ baseUrl: process.argv[2], apiKey: "sk-bench", name: "scripted-model" }),
  env: {},
  log: (line) => process.stderr.write(`${line}\n`),
});
await gateway.listen(join(dir, "gateway.sock"));
process.send(gateway.path);
process.on("disconnect", () => {
  void gateway.close().then(() => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
