// The Engine's public index names what a user of the Engine needs; test doubles live on the
// /testing subpath, and the configuration in @palisade/config.
import { describe, expect, it } from "vitest";
import * as engine from "@palisade/engine";
import * as testing from "@palisade/engine/testing";

describe("@palisade/engine's public API", () => {
  it("keeps the test doubles on /testing, out of the index", () => {
    expect(Object.keys(testing).sort()).toEqual(["MemoryStore", "PolicyShield"]);
    for (const name of Object.keys(testing)) expect(Object.keys(engine)).not.toContain(name);
  });

  it("leaves reading the config to @palisade/config", () => {
    for (const name of ["parseConfig", "loadConfig", "defaultConfig", "ConfigError", "discoverEngine", "currentSetup"])
      expect(Object.keys(engine)).not.toContain(name);
  });
});
