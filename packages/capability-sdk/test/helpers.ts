import { createClient } from "@palisade/protocol";
import type { Client } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { serveCapability } from "@palisade/capability-sdk";
import type { CapabilityDefinition, CapabilityServer, ServeOptions } from "@palisade/capability-sdk";

export const enc = new TextEncoder();
export const dec = new TextDecoder();

export interface Harness {
  server: CapabilityServer;
  client: Client<typeof Capability>;
  logs: string[];
  stop(): Promise<void>;
}

/** Serves `cap` on a free port and connects a typed client to it. */
export async function start(cap: CapabilityDefinition, options: ServeOptions = {}): Promise<Harness> {
  const logs: string[] = [];
  const server = await serveCapability(cap, { port: 0, log: (l) => logs.push(l), ...options });
  const client = createClient(Capability, server.address);
  return {
    server,
    client,
    logs,
    stop: async () => {
      client.close();
      await server.close();
    },
  };
}

export function json(value: unknown): Uint8Array {
  return enc.encode(JSON.stringify(value));
}

export function parse(bytes: Uint8Array): unknown {
  return JSON.parse(dec.decode(bytes));
}
