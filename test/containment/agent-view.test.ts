// The "what can I see" probe, run in the Agent's sandbox: every mount point, unix socket and
// environment variable it sees equals the documented view (docs/security.md, "The Agent's
// view"): an empty read-only root holding Node, the libraries Node loads, the Agent's code, the
// directory of the Engine's two sockets, a fresh /proc and a minimal /dev.
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentLaunchSpec } from "@palisade/agent";
import { MODEL_BASE_URL, runLikeAgent } from "./agent-harness.js";
import type { ProbeRun } from "./agent-harness.js";

interface View {
  mounts: { point: string; fstype: string; ro: boolean }[];
  sockets: string[];
  truncated: boolean;
  env: Record<string, string>;
}

/** The shared libraries the loader maps for Node, by the paths it names them (ldd). */
function nodeLibraries(): string[] {
  const out = execFileSync("ldd", [process.execPath], { encoding: "utf8" });
  return out
    .split("\n")
    .map((l) => /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(l)?.[1])
    .filter((p): p is string => p !== undefined);
}

const DEV_NODES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"];
const INSIDE = "/run/palisade";

let dir = "";
const servers: Server[] = [];
let run: ProbeRun;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pal-agent-view-"));
  // Both sockets exist, as they do once the Engine listens.
  for (const name of ["engine.sock", "model-gateway.sock"]) {
    const s = createServer((c) => c.destroy());
    await new Promise<void>((resolve) => s.listen(join(dir, name), resolve));
    servers.push(s);
  }
  run = await runLikeAgent("view", {}, { runtimeDir: dir, timeoutMs: 60_000, widenReads: true });
}, 90_000);
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe("what the Agent sees", () => {
  it("mounts: an empty read-only root with Node, its libraries, the Agent's code, the socket directory, /proc and a minimal /dev", () => {
    const view = run.result as unknown as View | undefined;
    expect(view, run.stderr).toBeDefined();
    const code = agentLaunchSpec({ engineAddress: "unix:/x", model: "m", modelGateway: "/x" }).readPaths;
    const expected = new Map<string, { fstype?: string; ro: boolean }>([
      ["/", { fstype: "tmpfs", ro: true }],
      ["/proc", { fstype: "proc", ro: false }],
      // bubblewrap binds these two read-only over its fresh /proc
      ["/proc/bus", { ro: true }],
      ["/proc/irq", { ro: true }],
      ["/dev", { fstype: "tmpfs", ro: false }],
      ["/dev/pts", { fstype: "devpts", ro: false }],
      ...DEV_NODES.map((p) => [p, { ro: false }] as const),
      [realpathSync(process.execPath), { ro: true }],
      ...nodeLibraries().map((p) => [p, { ro: true }] as const),
      ...code.map((p) => [p, { ro: true }] as const),
      // read-only: connect() needs no write access, and the Agent must not replace a socket
      [INSIDE, { ro: true }],
    ]);
    const seen = new Map(view!.mounts.map((m) => [m.point, m]));
    expect([...seen.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [point, want] of expected) {
      expect(seen.get(point)?.ro, point).toBe(want.ro);
      if (want.fstype) expect(seen.get(point)?.fstype, point).toBe(want.fstype);
    }
  });

  it("sockets: only the Engine's and the model gateway's", () => {
    const view = run.result as unknown as View;
    expect(view.truncated).toBe(false);
    expect(view.sockets.sort()).toEqual([`${INSIDE}/engine.sock`, `${INSIDE}/model-gateway.sock`]);
  });

  it("environment: the socket paths, the Agent's name and the model's label and settings; no URL, host or secret", () => {
    const env = (run.result as unknown as View).env;
    // PWD is bubblewrap's, for its --chdir.
    expect(Object.keys(env).sort()).toEqual([
      "PALISADE_AGENT_ID",
      "PALISADE_CONTEXT_WINDOW",
      "PALISADE_ENGINE_ADDRESS",
      "PALISADE_MODEL",
      "PALISADE_MODEL_GATEWAY",
      "PALISADE_MODEL_SETTINGS",
      "PWD",
    ]);
    expect(env.PWD).toBe("/");
    expect(env.PALISADE_ENGINE_ADDRESS).toBe(`unix:${INSIDE}/engine.sock`);
    expect(env.PALISADE_MODEL_GATEWAY).toBe(`${INSIDE}/model-gateway.sock`);
    const all = JSON.stringify(env);
    expect(all).not.toMatch(/:\/\//);
    expect(all).not.toContain("127.0.0.1");
    expect(all).not.toContain(dir);
    const url = new URL(MODEL_BASE_URL);
    for (const secret of [url.password, url.searchParams.get("api-key") ?? "?", url.host])
      expect(all).not.toContain(secret);
  });
});
