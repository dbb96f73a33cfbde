// The model gateway's test rig: a gateway on a unix socket in a temp dir in front of a scripted
// OpenAI-compatible server, the openai SDK over the Agent's own transport, and raw HTTP over the
// socket for what the SDK would never send.
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import OpenAI from "openai";
import { afterEach } from "vitest";
import { sdkTransport } from "@palisade/agent";
import { makeTempDir } from "@palisade/testing";
import type { ScriptedServer, TempDir } from "@palisade/testing";
import { ModelGateway } from "../src/gateway/index.js";
import type { GatewayPrincipal, ModelGatewayOptions } from "../src/gateway/index.js";

export const KEY = "sk-upstream-key-9d1c";
export const CREDENTIAL = "spawn-token-for-the-agent";

let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.reverse()) await fn();
  cleanup = [];
});

/** Runs `fn` after the current test, with the rig's own clean-ups (last registered first). */
export function onCleanup(fn: () => Promise<void>): void {
  cleanup.push(fn);
}

export interface Rig {
  dir: TempDir;
  model: ScriptedServer;
  gateway: ModelGateway;
  logs: string[];
}

export async function rig(model: ScriptedServer, options: Partial<ModelGatewayOptions> = {}): Promise<Rig> {
  const dir = await makeTempDir("palisade-gateway-");
  const logs: string[] = [];
  const gateway = new ModelGateway({
    authorize: (c): GatewayPrincipal | undefined =>
      c === CREDENTIAL
        ? { kind: "agent" }
        : c === "sub-token"
          ? { kind: "subagent", name: "ada", sessionId: "sub-session" }
          : undefined,
    model: () => ({ baseUrl: model.baseURL, apiKey: KEY, name: "scripted-model" }),
    env: {},
    log: (l) => logs.push(l),
    ...options,
  });
  await gateway.listen(join(dir.path, "gw.sock"));
  cleanup.push(
    () => dir.remove(),
    () => model.close(),
    () => gateway.close(),
  );
  return { dir, model, gateway, logs };
}

export async function sdk(gateway: ModelGateway, credential = CREDENTIAL): Promise<OpenAI> {
  const t = await sdkTransport({ gateway: gateway.path, credential });
  return new OpenAI({ apiKey: t.apiKey, baseURL: t.baseURL!, fetch: t.fetch!, maxRetries: 0 });
}

/** A raw HTTP request over the gateway's socket. */
export function raw(
  gateway: ModelGateway,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { socketPath: gateway.path, method, path, headers: { "content-type": "application/json", ...headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
