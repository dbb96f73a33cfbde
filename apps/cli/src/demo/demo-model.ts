import { demoReply } from "./scenarios.js";
import type { ScriptedServer } from "@palisade/testing";

/** Starts the scripted OpenAI-compatible server of @palisade/testing with the demo scenarios. */
export async function startDemoModel(): Promise<ScriptedServer> {
  const { startScriptedServer } = await import("@palisade/testing");
  return startScriptedServer({
    fallback: (req) => ({ tokenDelayMs: 15, ...demoReply(req) }),
    models: ["palisade-demo"],
  });
}
