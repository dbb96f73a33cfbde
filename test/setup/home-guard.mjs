// Tests and benchmarks touch nothing outside their temporary directories. Before a run this
// records Palisade's directories in the real home (the config with the audit key, the data, the
// cache) and points HOME and the XDG directories of every process the run starts at a temporary
// home; after the run it compares the real ones again and fails the run, naming each file that
// appeared, changed or went away. Used as vitest's globalSetup and by bench/run.mjs.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, relative } from "node:path";

/** Palisade's directories under `home`, where the CLI and the Engine look by default. */
export function palisadeDirs(home) {
  return [
    join(home, ".config", "palisade"),
    join(home, ".local", "share", "palisade"),
    join(home, ".cache", "palisade"),
  ];
}

/** Every file under `dirs`, path → size, mode and SHA-256 of its content (absent dirs: nothing). */
export function snapshot(dirs) {
  const out = new Map();
  const walk = (dir) => {
    let entries;
    try {
      entries = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of entries) {
      const path = join(dir, name);
      let st;
      try {
        st = statSync(path);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        walk(path);
        continue;
      }
      let digest = `${st.size}:${st.mode.toString(8)}`;
      try {
        if (st.isFile()) digest += `:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
      } catch {
        digest += ":unreadable";
      }
      out.set(path, digest);
    }
  };
  for (const d of dirs) walk(d);
  return out;
}

/** What differs between two snapshots, one line per file, paths relative to `home`. */
export function differences(before, after, home) {
  const lines = [];
  for (const [path, digest] of after) {
    const was = before.get(path);
    if (was === undefined) lines.push(`appeared: ~/${relative(home, path)}`);
    else if (was !== digest) lines.push(`changed: ~/${relative(home, path)}`);
  }
  for (const path of before.keys()) if (!after.has(path)) lines.push(`went away: ~/${relative(home, path)}`);
  return lines;
}

/**
 * Points this process's HOME and XDG directories (inherited by every process it starts) at a
 * fresh temporary home; `finish()` restores them, removes it and returns what changed in the real
 * home's Palisade directories meanwhile.
 */
export function isolateHome() {
  const realHome = homedir();
  const watched = palisadeDirs(realHome);
  const before = snapshot(watched);
  const fakeHome = mkdtempSync(join(tmpdir(), "palisade-test-home-"));
  const dirs = {
    HOME: fakeHome,
    XDG_CONFIG_HOME: join(fakeHome, ".config"),
    XDG_DATA_HOME: join(fakeHome, ".local", "share"),
    XDG_CACHE_HOME: join(fakeHome, ".cache"),
  };
  const saved = {};
  for (const [k, v] of Object.entries(dirs)) {
    saved[k] = process.env[k];
    mkdirSync(v, { recursive: true });
    process.env[k] = v;
  }
  return {
    realHome,
    fakeHome,
    finish() {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(fakeHome, { recursive: true, force: true });
      return differences(before, snapshot(watched), realHome);
    },
  };
}

/** The message for a run that wrote into the real home. */
export function leakMessage(realHome, changed) {
  return `the run wrote into the real home directory ${realHome} (give the harness a temporary --config/--data-dir or auditKeyFile, or HOME):\n  ${changed.join("\n  ")}`;
}

/** vitest globalSetup: isolate before the first test file, check after the last. */
export default function setup() {
  const home = isolateHome();
  return () => {
    const changed = home.finish();
    if (changed.length > 0) {
      // vitest reports an error thrown here but keeps the exit code: set it too
      process.exitCode = 1;
      throw new Error(leakMessage(home.realHome, changed));
    }
  };
}
