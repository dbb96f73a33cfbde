// Where bubblewrap cannot run, the Engine says so (start log, engine status) and refuses to
// start the capabilities that act in the workspace, unless the config says sandbox.required: false.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createClient } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import { startEngine } from "@palisade/engine";
import { loadConfig } from "@palisade/config";
import type { RunningEngine } from "@palisade/engine";

const NO_SANDBOX = { available: false, reason: "bubblewrap (bwrap) is not installed: `apt-get install bubblewrap`" };
let dir = "";
let engine: RunningEngine | undefined;

afterEach(async () => {
  await engine?.stop(2000);
  engine = undefined;
  rmSync(dir, { recursive: true, force: true });
});

async function boot(extra: string): Promise<{
  logs: string[];
  status: Awaited<ReturnType<ReturnType<typeof createClient<typeof ClientService>>["getStatus"]>>;
}> {
  dir = mkdtempSync(join(tmpdir(), "pal-nosbx-"));
  mkdirSync(join(dir, "ws"));
  const configPath = join(dir, "config.yaml");
  writeFileSync(
    configPath,
    [
      "model:",
      "  name: m",
      "capabilities:",
      ...["http", "documents", "mail"].map((id) => `  - { id: ${id}, enabled: false }`),
      `workspace: ${join(dir, "ws")}`,
      extra,
    ].join("\n"),
  );
  const logs: string[] = [];
  engine = await startEngine({
    dataDir: join(dir, "data"),
    config: await loadConfig(configPath, {}),
    env: {},
    log: (l) => logs.push(l),
    sandboxProbe: NO_SANDBOX,
    agent: { external: { token: "t" } },
  });
  const client = createClient(ClientService, engine.address, { bearerToken: engine.bearerToken });
  const status = await client.getStatus({});
  client.close();
  return { logs, status };
}

describe("without bubblewrap", () => {
  it("says so and refuses filesystem: workspace capabilities", async () => {
    const { logs, status } = await boot("");
    expect(logs.join("\n")).toMatch(
      /tool sandbox: UNAVAILABLE \(bubblewrap \(bwrap\) is not installed.*will not start; set sandbox.required: false/,
    );
    expect(status.toolSandbox).toMatch(/^tool sandbox: UNAVAILABLE/);
    for (const id of ["files", "shell"]) {
      const c = status.capabilities.find((x) => x.id === id);
      expect(c?.state, id).toBe("failed");
      expect(c?.message).toMatch(
        /must run in a sandbox, but none can be made here: bubblewrap .* set `sandbox: \{required: false\}`/,
      );
      expect(c?.toolCount).toBe(0);
    }
  });

  it("runs them unsandboxed with sandbox.required: false, and says so", async () => {
    const { status } = await boot("sandbox:\n  required: false");
    expect(status.toolSandbox).toMatch(/UNAVAILABLE .*capabilities run WITHOUT a sandbox/);
    for (const id of ["files", "shell"]) {
      const c = status.capabilities.find((x) => x.id === id);
      // Not refused: it starts on its first call, without a sandbox.
      expect(c?.state, id).toBe("stopped");
      expect(c?.message).toMatch(/starts on its first call/);
      expect(c?.sandbox).toMatch(/^none: bubblewrap \(bwrap\) is not installed/);
    }
  });
});
