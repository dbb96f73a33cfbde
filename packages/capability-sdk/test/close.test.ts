import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";
import { defineCapability, serveCapability } from "@palisade/capability-sdk";
import { json, newSecret, parse } from "./helpers.js";

const SECRET = newSecret();

let aborted: string | undefined;
let release: (() => void) | undefined;
const running = () => new Promise<void>((resolve) => (release = resolve));

const cap = defineCapability({
  id: "closer",
  tools: [
    {
      name: "hang",
      description: "Never finishes on its own; records why its signal fired.",
      inputSchema: { type: "object" },
      handler: async (_args, ctx) => {
        release?.();
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener("abort", () => {
            aborted = (ctx.signal.reason as Error).message;
            resolve();
          }),
        );
        return null;
      },
    },
    { name: "ping", description: "Answers pong.", inputSchema: { type: "object" }, handler: async () => "pong" },
  ],
});

describe("CapabilityServer.close", () => {
  it("cancels calls still running after the grace period, with a reason", async () => {
    const server = await serveCapability(cap, { port: 0, gracePeriodMs: 200, secret: SECRET, log: () => undefined });
    const client = createClient(Capability, server.address, { bearerToken: SECRET });
    try {
      const started = running();
      const call = client.invoke({ toolName: "hang" }).then(
        (r) => r,
        (e: unknown) => e,
      );
      await started;
      const t0 = Date.now();
      await server.close();
      await server.closed;
      expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
      expect(aborted).toBe("server shutting down");
      await call;
    } finally {
      client.close();
    }
  });
});

describe("listen address", () => {
  it("serves on a unix socket given as address", async () => {
    const dir = mkdtempSync(join(tmpdir(), "capsdk-"));
    const server = await serveCapability(cap, {
      address: `unix:${join(dir, "cap.sock")}`,
      secret: SECRET,
      log: () => undefined,
    });
    const client = createClient(Capability, server.address, { bearerToken: SECRET });
    try {
      expect(server.address).toBe(`unix:${join(dir, "cap.sock")}`);
      expect(parse((await client.invoke({ toolName: "ping", argsJson: json({}) })).resultJson)).toBe("pong");
    } finally {
      client.close();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("binds HOST from the environment", async () => {
    const server = await serveCapability(cap, {
      port: 0,
      env: { HOST: "0.0.0.0" },
      secret: SECRET,
      log: () => undefined,
    });
    try {
      expect(server.address).toMatch(/^0\.0\.0\.0:\d+$/);
      const client = createClient(Capability, `127.0.0.1:${server.address.split(":")[1]}`, { bearerToken: SECRET });
      expect((await client.healthcheck({})).ready).toBe(true);
      client.close();
    } finally {
      await server.close();
    }
  });
});
