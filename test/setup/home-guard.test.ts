// The guard of the real home (home-guard.mjs): every test process runs with a temporary HOME and
// XDG directories, and a change in the real home's Palisade directories is found and named.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { differences, palisadeDirs, snapshot } from "./home-guard.mjs";

describe("the real home is out of the tests' reach", () => {
  it("a test process's HOME and XDG directories are a temporary home, not the user's", () => {
    expect(homedir()).not.toBe(userInfo().homedir);
    expect(homedir().startsWith(tmpdir())).toBe(true);
    expect(process.env.XDG_CONFIG_HOME).toBe(join(homedir(), ".config"));
    expect(process.env.XDG_DATA_HOME).toBe(join(homedir(), ".local", "share"));
  });

  it("finds a file that appeared, changed or went away in Palisade's directories", () => {
    const home = mkdtempSync(join(tmpdir(), "guard-"));
    try {
      const [config, data] = palisadeDirs(home) as [string, string];
      mkdirSync(config, { recursive: true });
      writeFileSync(join(config, "config.yaml"), "model: {}\n");
      writeFileSync(join(config, "old.txt"), "x");
      const before = snapshot(palisadeDirs(home));
      writeFileSync(join(config, "config.yaml"), "model: { name: x }\n");
      rmSync(join(config, "old.txt"));
      mkdirSync(data, { recursive: true });
      writeFileSync(join(config, "audit.key"), "{}");
      expect(differences(before, snapshot(palisadeDirs(home)), home).sort()).toEqual([
        "appeared: ~/.config/palisade/audit.key",
        "changed: ~/.config/palisade/config.yaml",
        "went away: ~/.config/palisade/old.txt",
      ]);
      expect(differences(before, before, home)).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
