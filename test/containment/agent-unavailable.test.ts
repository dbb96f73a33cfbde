// Where bubblewrap cannot run, the Agent is walled in like the tools: refused with the reason and
// the way out, unless the config says sandbox.required: false; then it runs with Node's
// permission model and a network namespace only, and `engine status` says so.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { startEngine } from "@palisade/engine";
import { loadConfig } from "@palisade/config";
import type { RunningEngine } from "@palisade/engine";
import { startScriptedServer } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";

const NO_SANDBOX = { available: false, reason: "bubblewrap (bwrap) is not installed: `apt-get install bubblewrap`" };
let dir = "";
let engine: RunningEngine | undefined;
let model: ScriptedServer | undefined;

afterEach(async () => {
  await engine?.stop(2000);
  await model?.close();
  engine = undefined;
  model = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function boot(
  extra: string,
): Promise<{ logs: string[]; client: ReturnType<typeof createClient<typeof ClientService>> }> {
  dir = mkdtempSync(join(tmpdir(), "pal-agent-nosbx-"));
  model = await startScriptedServer({ fallback: { content: "hello without bubblewrap" } });
  const configPath = join(dir, "config.yaml");
  writeFileSync(
    configPath,
    [
      "model:",
      "  name: scripted-model",
      `  base_url: ${model.baseURL}`,
      "capabilities:",
      ...["files", "shell", "http", "documents", "mail"].map((id) => `  - { id: ${id}, enabled: false }`),
      `workspace: ${dir}`,
      extra,
    ].join("\n"),
  );
  const logs: string[] = [];
  engine = await startEngine({
    dataDir: join(dir, "data"),
    config: await loadConfig(configPath, {}),
    auditKeyFile: join(dir, "audit.key"),
    env: {},
    log: (l) => logs.push(l),
    sandboxProbe: NO_SANDBOX,
  });
  return { logs, client: createClient(ClientService, engine.address, { bearerToken: engine.bearerToken }) };
}

describe("the Agent without bubblewrap", () => {
  it("is refused with the reason and the way out; the Engine stays up and a turn says why", async () => {
    const { logs, client } = await boot("");
    expect(logs.join("\n")).toMatch(
      /agent sandbox: UNAVAILABLE: the Agent must run in a bubblewrap sandbox.*apt-get install bubblewrap.*sandbox: \{required: false\}/,
    );
    const status = await client.getStatus({});
    expect(status.agentState).toBe("refused");
    expect(status.agentConnected).toBe(false);
    const evs: PipelineEvent[] = [];
    for await (const ev of client.sendMessage({ content: "hi" }, { timeoutMs: 20_000 })) evs.push(ev);
    const error = evs.find((e) => e.pipelineError)?.pipelineError?.message ?? "";
    expect(error).toMatch(/must run in a bubblewrap sandbox.*Install bubblewrap/);
    expect(model?.requests.length).toBe(0);
    client.close();
  });

  it("with sandbox.required: false runs with the permission model and a network namespace, and engine status says so", async () => {
    const { client } = await boot("sandbox:\n  required: false");
    await engine!.agentReady(20_000);
    const status = await client.getStatus({});
    expect(status.agentConfinement?.process).toMatch(
      /^NO bubblewrap \(bubblewrap \(bwrap\) is not installed.*sandbox.required is false/,
    );
    expect(status.agentConfinement?.permissionModel).toBe(true);
    const evs: PipelineEvent[] = [];
    for await (const ev of client.sendMessage({ content: "hi" }, { timeoutMs: 20_000 })) evs.push(ev);
    expect(evs.find((e) => e.responseComplete)?.responseComplete?.content).toBe("hello without bubblewrap");
    client.close();
  });
});
