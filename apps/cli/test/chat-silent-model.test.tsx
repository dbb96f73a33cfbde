// A model that stays silent for a while and a loaded machine: the chat's health check times out
// (here the Engine is SIGSTOPped meanwhile), the chat looks for the Engine again, finds the same
// one and keeps the connection that carries the turn, so the model's answer arrives. Real
// Engine, real Agent, real gRPC, the real chat controller and link; the scripted model server.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { render } from "ink-testing-library";
import { createClient } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import { startScriptedServer, waitFor } from "@palisade/testing";
import type { ScriptedServer } from "@palisade/testing";
import { runCli } from "../src/cli/run-cli.js";
import { connectToEngine } from "../src/engine/connect.js";
import type { EngineConnection } from "../src/engine/connect.js";
import { resolvePaths } from "../src/engine-address.js";
import type { PalisadePaths } from "../src/engine-address.js";
import { ChatApp } from "../src/tui/ChatApp.js";
import { ChatController } from "../src/tui/controller.js";
import { discoveryLink } from "../src/tui/run-chat.js";
import { initialState } from "../src/tui/state/reducer.js";
import { captureIo } from "./helpers.js";

const main = join(import.meta.dirname, "..", "dist", "main.js");
const built = existsSync(main);

const ANSWER = "After a long think: the answer is forty-two.";
const SILENCE_MS = 12_000;

describe.skipIf(!built)("a silent model while the Engine does not answer health checks", () => {
  let model: ScriptedServer;
  let root: string;
  let ws: string;
  let g: string[];
  let paths: PalisadePaths;
  let conn: EngineConnection;
  const env = (): Record<string, string | undefined> => ({
    PALISADE_CLI_MAIN: main,
    HOME: root,
    PATH: process.env.PATH,
  });

  beforeAll(async () => {
    model = await startScriptedServer({ turns: [{ content: ANSWER, latencyMs: SILENCE_MS }], tokenDelayMs: 0 });
    root = mkdtempSync(join(tmpdir(), "psilent-"));
    ws = join(root, "w");
    mkdirSync(ws);
    writeFileSync(
      join(root, "config.yaml"),
      `model:\n  base_url: ${model.baseURL}\n  name: scripted-model\nhistory:\n  auto_title: false\n`,
    );
    g = ["--data-dir", join(root, "d"), "--config", join(root, "config.yaml")];
    const io = captureIo(env(), ws);
    expect(await runCli([...g, "engine", "start"], io), io.err()).toBe(0);
    paths = resolvePaths({ dataDir: join(root, "d"), configFile: join(root, "config.yaml") }, {}, root);
    conn = await connectToEngine(paths);
  }, 120_000);

  afterAll(async () => {
    conn?.client.close();
    if (conn) process.kill(conn.endpoint.info.pid, "SIGCONT");
    await runCli([...g, "engine", "stop"], captureIo({ HOME: root }, root));
    await model?.close();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it("the turn completes with the model's answer; the connection carrying it is kept", async () => {
    // The chat's channel pings a connection carrying a call every 5 minutes; a closed channel
    // fails its calls at the next ping. Pinging every second shows in seconds what a user sees
    // within 5 minutes of a reconnect (2.5 on average).
    const client = createClient(ClientService, conn.endpoint.address, {
      ...(conn.endpoint.bearerToken ? { bearerToken: conn.endpoint.bearerToken } : {}),
      channelOptions: { "grpc.keepalive_time_ms": 1000 },
    });
    const link = discoveryLink(paths, { ...conn, client });
    const turnClient = link.client;
    const controller = new ChatController(
      link,
      initialState({ now: Date.now(), columns: 100, rows: 40, model: "scripted-model", connection: "connected" }),
      // the chat's own heartbeat period and timeout (3 s, 2.5 s)
      { onExit: () => undefined, clearScreen: () => undefined, workspace: ws, cwd: ws },
    );
    const app = render(<ChatApp controller={controller} />);
    const frames = (): string => app.frames.join("\n");
    const connections: string[] = [controller.getState().connection];
    controller.subscribe(() => {
      const c = controller.getState().connection;
      if (connections.at(-1) !== c) connections.push(c);
    });
    const pid = conn.endpoint.info.pid;
    try {
      controller.start();
      app.stdin.write("what is the answer?");
      await new Promise((r) => setTimeout(r, 30));
      app.stdin.write("\r");
      await waitFor(() => model.requests.some((r) => r.path.endsWith("/chat/completions")), {
        timeoutMs: 60_000,
        message: "the model server receives the turn's request",
      });
      const asked = Date.now();
      // The Engine stops answering: the next health check times out and the chat reconnects.
      process.kill(pid, "SIGSTOP");
      try {
        await waitFor(() => controller.getState().connection === "reconnecting", {
          timeoutMs: 30_000,
          message: "the chat notices that the Engine does not answer",
        });
        // a reconnect attempt or two while it still does not answer
        await new Promise((r) => setTimeout(r, 500));
      } finally {
        process.kill(pid, "SIGCONT");
      }
      expect(Date.now() - asked, "the Engine resumed while the model was still silent").toBeLessThan(SILENCE_MS);
      await waitFor(() => controller.getState().turn === undefined, {
        timeoutMs: 60_000,
        message: `the turn ends; last frame:\n${app.lastFrame() ?? ""}`,
      });
      expect(frames()).not.toContain("lost the Engine during this turn");
      expect(frames()).not.toContain("the turn failed");
      expect(frames()).toContain(ANSWER);
      expect(controller.getState().committed.some((e) => e.kind === "assistant" && e.text === ANSWER)).toBe(true);
      await waitFor(() => controller.getState().connection === "connected", {
        timeoutMs: 30_000,
        message: "the chat is connected again",
      });
      expect(connections).toEqual(["connected", "reconnecting", "connected"]);
      // the same Engine: the channel that carried the turn is still the one in use, and open
      expect(link.client).toBe(turnClient);
      expect((await turnClient.getStatus({}, { timeoutMs: 10_000 })).model).toBe("scripted-model");
    } finally {
      app.unmount();
      controller.close();
    }
  }, 120_000);
});
