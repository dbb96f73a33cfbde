// A capability that goes over its manifest's memory limit, in a real Engine with the Shield off:
// the call fails as a tool error, the Engine and the Agent carry on, and the capability is
// restarted. The limit is applied the way this machine allows (a memory cgroup as root,
// RLIMIT_DATA elsewhere; packages/sandbox/test/limits.test.ts proves the rlimit path as an
// unprivileged user), and engine status names the mechanism.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PipelineEventType as T } from "@palisade/protocol/pipeline";
import { probeSandbox } from "@palisade/sandbox";
import { startContainment } from "./harness.js";
import type { Containment } from "./harness.js";

const probe = await probeSandbox();
if (!probe.available && process.env.CI) throw new Error(`CI must run the containment proofs: ${probe.reason}`);

const hog = fileURLToPath(new URL("./fixtures/hog-cap/", import.meta.url));

describe.skipIf(!probe.available)("a capability over its memory limit", () => {
  let h: Containment;

  beforeAll(async () => {
    h = await startContainment({
      policy: "shield-off",
      groups: ["hog"],
      capabilities: [
        ...["http", "documents", "mail"].map((id) => `  - { id: ${id}, enabled: false }`),
        "  - id: hog",
        `    manifest: ${hog}manifest.yaml`,
        `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(`${hog}main.mjs`)}]`,
        "    protocol: palisade",
      ],
    });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  const hogState = async (): Promise<string | undefined> =>
    (await h.client.getStatus({})).capabilities.find((c) => c.id === "hog")?.state;

  it("within the limit the capability works", async () => {
    const r = await h.turn([{ name: "hog__allocate", arguments: { mb: 32 } }]);
    expect(r.results.join("\n")).toContain('"allocated_mb":32');
    await h.turn([{ name: "hog__release", arguments: {} }]);
  });

  it("once started, engine status says how the 160 MiB limit is applied", async () => {
    const sandbox = (await h.client.getStatus({})).capabilities.find((c) => c.id === "hog")?.sandbox ?? "";
    expect(sandbox).toMatch(
      /160 MiB memory \((memory cgroup v[12], the whole sandbox|RLIMIT_DATA \d+ MiB, each process[^)]*)\)/,
    );
    expect(sandbox).toMatch(/64 processes \(/);
  });

  it("over the limit the call fails as a tool error; the Engine, the Agent and then the capability carry on", async () => {
    const r = await h.turn([{ name: "hog__allocate", arguments: { mb: 1024 } }]);
    const out = r.results.join("\n");
    // The capability never held the memory: no result, an error the model can read.
    expect(out).not.toContain('"allocated_mb"');
    // Killed by the memory cgroup (said so), or the allocation refused inside by RLIMIT_DATA.
    expect(out).toMatch(
      /hog__allocate.*killed by SIGKILL \(what its memory cgroup does when it goes over its 160 MiB limit|hog__allocate failed: .*allocate memory/,
    );
    expect(r.events.some((e) => e.eventType === T.ERROR && e.pipelineError?.code === "AGENT_CRASHED")).toBe(false);
    const status = await h.client.getStatus({});
    expect(status.agentConnected).toBe(true);
    // Killed (cgroup) and restarted, or refused the allocation (rlimit) and still running: ready either way.
    const deadline = Date.now() + 30_000;
    while ((await hogState()) !== "ready" && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await hogState()).toBe("ready");
    const again = await h.turn([{ name: "hog__allocate", arguments: { mb: 16 } }]);
    expect(again.results.join("\n")).toContain('"allocated_mb":16');
  }, 90_000);
});
