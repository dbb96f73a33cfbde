// Test helpers for capability authors: serve a capability on a free port and call it like the
// Engine does; read a manifest's tools to check they match the code.
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { serveCapability } from "./serve.js";
import type { CapabilityDefinition } from "./define.js";
import type { CapabilityServer } from "./serve.js";
import { parse as parseYaml } from "yaml";

const enc = new TextEncoder();
const dec = new TextDecoder();

export interface InvokeOutcome {
  result: Record<string, unknown>;
  error: string;
}

/** A capability served on a free port with a per-test secret and a typed gRPC client that sends it, as the Engine reaches it (for tests). */
export interface Harness {
  server: CapabilityServer;
  client: Client<typeof Capability>;
  logs: string[];
  invoke(tool: string, args: unknown, config?: unknown): Promise<InvokeOutcome>;
  /** StreamInvoke: the decoded data chunks and the error of the last chunk, if any. */
  stream(tool: string, args: unknown, config?: unknown): Promise<{ chunks: string[]; error: string }>;
  stop(): Promise<void>;
}

export async function serveForTest(cap: CapabilityDefinition): Promise<Harness> {
  const logs: string[] = [];
  const secret = randomBytes(32).toString("base64url");
  const server = await serveCapability(cap, { port: 0, secret, log: (l) => logs.push(l) });
  const client = createClient(Capability, server.address, { bearerToken: secret });
  const request = (tool: string, args: unknown, config: unknown) => ({
    toolName: tool,
    argsJson: enc.encode(JSON.stringify(args)),
    configJson: enc.encode(JSON.stringify(config ?? {})),
    sessionId: "s1",
    capabilityId: cap.id,
    threadId: "t1",
  });
  return {
    server,
    client,
    logs,
    invoke: async (tool, args, config) => {
      const res = await client.invoke(request(tool, args, config), { timeoutMs: 60_000 });
      const text = dec.decode(res.resultJson);
      return { result: (text ? JSON.parse(text) : {}) as Record<string, unknown>, error: res.error };
    },
    stream: async (tool, args, config) => {
      const chunks: string[] = [];
      let error = "";
      for await (const chunk of client.streamInvoke(request(tool, args, config), { timeoutMs: 60_000 })) {
        if (chunk.data.byteLength > 0) chunks.push(dec.decode(chunk.data));
        if (chunk.error) error = chunk.error;
      }
      return { chunks, error };
    },
    stop: async () => {
      client.close();
      await server.close();
    },
  };
}

interface ManifestTool {
  name: string;
  description: string;
  input_schema: unknown;
  recommended_policy?: string;
}

/** The tools of a manifest.yaml, for checking that it matches the code. */
export async function manifestTools(
  manifestPath: string,
): Promise<{ manifest: Record<string, unknown>; tools: ManifestTool[] }> {
  const manifest = parseYaml(await readFile(manifestPath, "utf8")) as Record<string, unknown>;
  return { manifest, tools: (manifest.tools ?? []) as ManifestTool[] };
}
