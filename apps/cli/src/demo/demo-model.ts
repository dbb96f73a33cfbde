import { demoReply } from "./scenarios.js";
import type { DemoRequest } from "./scenarios.js";

interface ScriptedServerLike {
  baseURL: string;
  close(): Promise<void>;
}
type StartScripted = (options: { fallback: (req: DemoRequest) => { content?: string; toolCalls?: { name: string; arguments: Record<string, unknown> }[]; tokenDelayMs?: number }; models?: string[] }) => Promise<ScriptedServerLike>;

/** Starts the scripted OpenAI-compatible server of @palisade/testing with the demo scenarios. */
export async function startDemoModel(): Promise<ScriptedServerLike> {
  const name = "@palisade/testing";
  const mod = (await import(name)) as { startScriptedServer?: StartScripted };
  if (!mod.startScriptedServer) throw new Error("@palisade/testing has no startScriptedServer; run 'make build'");
  return mod.startScriptedServer({ fallback: (req) => ({ tokenDelayMs: 15, ...demoReply(req) }), models: ["palisade-demo"] });
}
