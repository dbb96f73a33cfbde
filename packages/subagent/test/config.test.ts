import { describe, expect, it } from "vitest";
import { readSubAgentConfig, subAgentLaunchSpec } from "../src/index.js";

describe("sub-agent model settings", () => {
  it("travel from the launch spec to the sub-agent's config; no key anywhere, the model gateway's socket instead", () => {
    const spec = subAgentLaunchSpec({
      engineAddress: "unix:/s",
      modelGateway: "/run/g.sock",
      modelSettings: { idleTimeoutMs: 5000, headers: { "X-Title": "P" } },
    });
    expect(Object.keys(spec.env).filter((k) => k.startsWith("OPENAI_"))).toEqual([]);
    const config = readSubAgentConfig(spec.env, { token: "t" });
    expect(config.modelGateway).toBe("/run/g.sock");
    expect(config.modelSettings).toMatchObject({ idleTimeoutMs: 5000, headers: { "X-Title": "P" }, maxRetries: 3 });
  });
  it("are optional, and refused when malformed", () => {
    expect(
      readSubAgentConfig({ PALISADE_ENGINE_ADDRESS: "unix:/s", PALISADE_MODEL_GATEWAY: "/g" }, { token: "t" })
        .modelSettings,
    ).toBeUndefined();
    expect(() =>
      readSubAgentConfig(
        { PALISADE_ENGINE_ADDRESS: "unix:/s", PALISADE_MODEL_GATEWAY: "/g", PALISADE_MODEL_SETTINGS: "{" },
        { token: "t" },
      ),
    ).toThrow(/PALISADE_MODEL_SETTINGS is not JSON/);
  });
});
