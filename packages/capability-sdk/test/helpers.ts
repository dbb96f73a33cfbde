import { randomBytes } from "node:crypto";
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

/** A fresh launch secret, as the Engine makes one per launch. */
export const newSecret = (): string => randomBytes(32).toString("base64url");

/** Serves `cap` on a free port with a fresh secret and connects a typed client that sends it. */
export async function start(cap: CapabilityDefinition, options: ServeOptions = {}): Promise<Harness> {
  const logs: string[] = [];
  const secret = options.secret ?? newSecret();
  const server = await serveCapability(cap, { port: 0, log: (l) => logs.push(l), secret, ...options });
  const client = createClient(Capability, server.address, { bearerToken: secret });
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
