// The chat's link to the Engine (discoveryLink) on reconnect: it keeps its connection while
// engine.json names the same Engine, switches when another took over, and closes the channel it
// leaves only after the calls on it ended. Real gRPC against two stand-in ClientServices; a real
// engine.json in a temporary data directory.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";
import type { PipelineEvent } from "@palisade/protocol/pipeline";
import { writeEngineInfo } from "@palisade/config/discovery";
import { waitFor } from "@palisade/testing";
import type { EngineClient, EngineConnection } from "../src/engine/connect.js";
import { findEngine, resolvePaths } from "../src/engine-address.js";
import type { PalisadePaths } from "../src/engine-address.js";
import { discoveryLink } from "../src/tui/run-chat.js";
import { startFakeEngine } from "./fake/fake-engine.js";
import type { RunningFakeEngine } from "./fake/fake-engine.js";

describe("the chat's link on reconnect", () => {
  let root: string;
  let paths: PalisadePaths;
  let a: RunningFakeEngine;
  let b: RunningFakeEngine;
  const opened: EngineClient[] = [];

  // A closed channel fails its calls at the next keepalive ping (every 5 minutes in the chat);
  // pinging every 300 ms shows it within the test.
  const dial = (address: string): EngineClient => {
    const client = createClient(ClientService, address, { channelOptions: { "grpc.keepalive_time_ms": 300 } });
    opened.push(client);
    return client;
  };
  const announce = (address: string, startedAt: string): Promise<void> =>
    writeEngineInfo(paths.dataDir, { pid: process.pid, address, startedAt, version: "test" });
  const connect = async (client: EngineClient): Promise<EngineConnection> => {
    const endpoint = await findEngine(paths);
    if (!endpoint) throw new Error("engine.json names no Engine");
    return { client, endpoint, status: await client.getStatus({}), startedHere: false, close: () => client.close() };
  };
  const answer = async (stream: AsyncIterable<PipelineEvent>, seen: PipelineEvent[]): Promise<string> => {
    for await (const event of stream) seen.push(event);
    return seen.map((e) => e.llmToken?.text ?? "").join("");
  };

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "plink-"));
    paths = resolvePaths({ dataDir: join(root, "d"), configFile: join(root, "config.yaml") }, {}, root);
    mkdirSync(paths.dataDir, { mode: 0o700 });
    a = await startFakeEngine("127.0.0.1:0", { tokenDelayMs: 40 });
    b = await startFakeEngine("127.0.0.1:0", { tokenDelayMs: 1 });
  });

  afterEach(async () => {
    for (const c of opened.splice(0)) c.close();
    await a.close();
    await b.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("the same Engine in engine.json: the connection and the turn on it are kept", async () => {
    await announce(a.address, "2026-01-01T00:00:00.000Z");
    const client = dial(a.address);
    const link = discoveryLink(paths, await connect(client), (e) => dial(e.address));
    const seen: PipelineEvent[] = [];
    const release = link.hold?.(client) ?? (() => undefined);
    const turn = answer(client.sendMessage({ content: "hello", clientMessageId: "m-1" }), seen);
    await waitFor(() => seen.some((e) => e.llmToken !== undefined), { message: "the answer starts" });
    expect(await link.reconnect()).toBe(client);
    expect(link.client).toBe(client);
    expect(opened).toHaveLength(1);
    expect(await turn).toContain("for more.");
    release();
    expect((await client.getStatus({}, { timeoutMs: 10_000 })).model).toBe("scripted-model");
  });

  it("another Engine in engine.json: the link switches; the old channel closes once its turn ended", async () => {
    await announce(a.address, "2026-01-01T00:00:00.000Z");
    const old = dial(a.address);
    const link = discoveryLink(paths, await connect(old), (e) => dial(e.address));
    const seen: PipelineEvent[] = [];
    const release = link.hold?.(old) ?? (() => undefined);
    const turn = answer(old.sendMessage({ content: "hello", clientMessageId: "m-1" }), seen);
    await waitFor(() => seen.some((e) => e.llmToken !== undefined), { message: "the answer starts" });

    await announce(b.address, "2026-01-01T00:05:00.000Z");
    const next = await link.reconnect();
    expect(next).not.toBe(old);
    expect(link.client).toBe(next);
    expect((await next.getStatus({}, { timeoutMs: 10_000 })).model).toBe("scripted-model");
    expect(b.engine.received).toHaveLength(0);
    // the turn on the old channel runs to its end, well past a few keepalive pings
    expect(await turn).toContain("for more.");
    expect((await old.getStatus({}, { timeoutMs: 10_000 })).model).toBe("scripted-model");
    release();
    await expect(old.getStatus({}, { timeoutMs: 10_000 })).rejects.toThrow();
    expect((await next.getStatus({}, { timeoutMs: 10_000 })).model).toBe("scripted-model");
  });

  it("another Engine and no call in flight: the old channel is closed at once", async () => {
    await announce(a.address, "2026-01-01T00:00:00.000Z");
    const old = dial(a.address);
    const link = discoveryLink(paths, await connect(old), (e) => dial(e.address));
    await announce(b.address, "2026-01-01T00:05:00.000Z");
    expect(await link.reconnect()).not.toBe(old);
    await expect(old.getStatus({}, { timeoutMs: 10_000 })).rejects.toThrow();
  });

  it("engine.json gone: reconnect says so and keeps the connection", async () => {
    await announce(a.address, "2026-01-01T00:00:00.000Z");
    const client = dial(a.address);
    const link = discoveryLink(paths, await connect(client), (e) => dial(e.address));
    rmSync(paths.infoFile);
    await expect(link.reconnect()).rejects.toThrow(`no Engine running for ${paths.dataDir}`);
    expect(link.client).toBe(client);
    expect((await client.getStatus({}, { timeoutMs: 10_000 })).model).toBe("scripted-model");
  });
});
