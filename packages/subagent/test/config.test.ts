import { describe, expect, it } from "vitest";
import { readSubAgentConfig, subAgentLaunchSpec } from "../src/index.js";

describe("sub-agent model settings", () => {
  it("travel from the launch spec to the sub-agent's config, without the key", () => {
    const spec = subAgentLaunchSpec({ engineAddress: "unix:/s", apiKey: "sk-secret", modelSettings: { idleTimeoutMs: 5000, headers: { "X-Title": "P" } } });
    expect(spec.env.PALISADE_MODEL_SETTINGS).not.toContain("sk-secret");
    const config = readSubAgentConfig(spec.env, { token: "t" });
    expect(config.modelSettings).toMatchObject({ idleTimeoutMs: 5000, headers: { "X-Title": "P" }, maxRetries: 3 });
  });
  it("are optional, and refused when malformed", () => {
    expect(readSubAgentConfig({ PALISADE_ENGINE_ADDRESS: "unix:/s" }, { token: "t" }).modelSettings).toBeUndefined();
    expect(() => readSubAgentConfig({ PALISADE_ENGINE_ADDRESS: "unix:/s", PALISADE_MODEL_SETTINGS: "{" }, { token: "t" })).toThrow(/PALISADE_MODEL_SETTINGS is not JSON/);
  });
});
