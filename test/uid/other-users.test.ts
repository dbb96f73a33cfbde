// Another local user against the owner's Palisade, both real users running the real CLI. Each
// break is judged by its effect: the attacker's server never hears from the owner's command, the
// attacker's calls never succeed, the owner's command refuses and says why.
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attackerCalls, freePort, listenAs, palisade, setUpUsers, shAs, SKIP_REASON, writeAs } from "./users.js";
import type { Listener, Users } from "./users.js";

// Needs root (to create the users and switch to them): elsewhere the folder is skipped, and the
// reason is in the suite's name.
describe.skipIf(SKIP_REASON !== undefined)(
  `other users on the same machine${SKIP_REASON ? ` (skipped: ${SKIP_REASON})` : ""}`,
  () => {
    let u: Users;
    const listeners: Listener[] = [];
    /** Data dirs where an owner's Engine may run: stopped after the tests whatever happened. */
    const engines: string[] = [];

    beforeAll(() => {
      u = setUpUsers();
    });
    afterAll(async () => {
      for (const dataDir of engines) await palisade(u.owner, ["engine", "stop", "--data-dir", dataDir]);
      listeners.forEach((l) => l.stop());
      u.cleanup();
    }, 60_000);

    /** The owner's own private config (0600 in their home), listening on TCP. */
    function ownerConfig(name: string, body: string): string {
      const dir = join(u.owner.home, name);
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, u.owner.uid, u.owner.gid);
      const file = join(dir, "config.yaml");
      writeAs(u.owner, file, body, 0o600);
      return file;
    }

    it("refuses a data directory the attacker planted with a token of theirs (and serves them nothing)", async () => {
      const planted = join(u.shared, "planted");
      const token = "attacker-knows-this-token-000000000000000000";
      await shAs(u.attacker, `mkdir -m 777 ${planted} && printf '%s\\n' ${token} > ${planted}/engine.token`);
      const port = await freePort();
      const config = ownerConfig("cfg-planted", `listen:\n  tcp: "127.0.0.1:${port}"\n`);
      engines.push(planted);
      const started = await palisade(u.owner, ["engine", "start", "--data-dir", planted, "--config", config]);

      const calls = await attackerCalls(u.attacker, `127.0.0.1:${port}`, token);
      expect(calls.ListSessions).not.toBe("OK");
      expect(Object.values(calls).every((c) => c === "UNAVAILABLE")).toBe(true);
      expect(started.code).not.toBe(0);
      expect(started.stderr).toContain(`the data directory ${planted} is owned by palisade-attacker`);
      expect(started.stderr).toMatch(/move it under your home|let Palisade create it/);
      expect(existsSync(join(planted, "engine.json"))).toBe(false);
    });

    it("refuses an engine.json planted where the attacker can write (the fake Engine hears nothing)", async () => {
      const fake = await listenAs(u.attacker);
      listeners.push(fake);
      // the owner's data dir lives in a directory the attacker owns and anyone can write
      const open = join(u.shared, "open");
      await shAs(u.attacker, `mkdir -m 777 ${open}`);
      const dataDir = join(open, "palisade");
      await shAs(u.owner, `mkdir -m 700 ${dataDir}`);
      // the attacker moves it away and puts theirs in its place, naming their own server
      const info = JSON.stringify({ pid: fake.pid, address: `127.0.0.1:${fake.port}`, startedAt: "", version: "" });
      await shAs(
        u.attacker,
        `mv ${dataDir} ${open}/moved && mkdir -m 755 ${dataDir} && printf '%s' '${info}' > ${dataDir}/engine.json && echo t > ${dataDir}/engine.token`,
      );

      const status = await palisade(u.owner, ["engine", "status", "--data-dir", dataDir]);
      expect(await fake.connections()).toEqual([]);
      expect(status.code).not.toBe(0);
      expect(status.stderr).toContain(`the data directory ${dataDir}: ${open} is owned by palisade-attacker (uid`);

      // the owner's own directory is refused too below a directory anyone may rename entries of,
      // even root's
      const world = join(u.shared, "world");
      mkdirSync(world);
      chmodSync(world, 0o777);
      const mine = join(world, "palisade");
      await shAs(u.owner, `mkdir -m 700 ${mine}`);
      const own = await palisade(u.owner, ["engine", "status", "--data-dir", mine]);
      expect(own.code).not.toBe(0);
      expect(own.stderr).toContain(
        `the data directory ${mine}: ${world} is writable by every user (mode 777) without the sticky bit`,
      );
      expect(own.stderr).toContain(`chmod go-w ${world}, or move ${mine} under your home`);
      expect(await fake.connections()).toEqual([]);
    });

    it("refuses a config.yaml the attacker swapped (the owner's API key never reaches them)", async () => {
      const model = await listenAs(u.attacker);
      listeners.push(model);
      const cfgDir = join(u.shared, "shared-config");
      await shAs(u.attacker, `mkdir -m 777 ${cfgDir}`);
      const config = join(cfgDir, "config.yaml");
      writeAs(u.owner, config, "model:\n  name: gpt-4o-mini\n", 0o644);
      // the directory is the attacker's to write: they replace the owner's file with theirs
      await shAs(
        u.attacker,
        `mv ${config} ${cfgDir}/old.yaml && printf 'model:\\n  name: gpt-4o-mini\\n  base_url: http://127.0.0.1:${model.port}/v1\\n' > ${config}`,
      );
      const key = "sk-owner-secret-4f9e2a7c";
      const dataDir = join(u.owner.home, "data-config");
      engines.push(dataDir);
      const run = await palisade(u.owner, ["run", "hello", "--config", config, "--data-dir", dataDir], {
        OPENAI_API_KEY: key,
      });

      const seen = await model.connections();
      expect(seen.filter((s) => s.includes(key))).toEqual([]);
      expect(seen).toEqual([]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toContain(`the config file ${config}: ${cfgDir} is owned by palisade-attacker (uid`);
    });

    it("refuses a config with model.api_key that others can read", async () => {
      const config = ownerConfig("cfg-key", "model:\n  name: gpt-4o-mini\n  api_key: sk-in-the-file-91c3\n");
      writeAs(u.owner, config, "model:\n  name: gpt-4o-mini\n  api_key: sk-in-the-file-91c3\n", 0o644);
      const dataDir = join(u.owner.home, "data-key");
      engines.push(dataDir);
      const started = await palisade(u.owner, ["engine", "start", "--config", config, "--data-dir", dataDir]);
      expect(started.code).not.toBe(0);
      expect(started.stderr).toContain(`chmod 600 ${config}, or use OPENAI_API_KEY`);
      expect(existsSync(join(dataDir, "engine.json"))).toBe(false);
    });

    it("keeps the attacker out of the owner's Engine and data directory", async () => {
      // one Engine on the default unix socket in the owner's home, one on TCP
      const onUnix = join(u.owner.home, ".local", "share", "palisade");
      engines.push(onUnix);
      const unix = await palisade(u.owner, ["engine", "start"]);
      expect(unix.code).toBe(0);
      const port = await freePort();
      const config = ownerConfig("cfg-tcp", `listen:\n  tcp: "127.0.0.1:${port}"\n`);
      const onTcp = join(u.owner.home, "data-tcp");
      engines.push(onTcp);
      const tcp = await palisade(u.owner, ["engine", "start", "--config", config, "--data-dir", onTcp]);
      expect(tcp.code).toBe(0);

      const viaSocket = await attackerCalls(u.attacker, `unix:${join(onUnix, "engine.sock")}`, "guessed");
      expect(Object.values(viaSocket)).toEqual(Array(Object.keys(viaSocket).length).fill("UNAVAILABLE"));
      for (const token of [undefined, "guessed-token"]) {
        const viaTcp = await attackerCalls(u.attacker, `127.0.0.1:${port}`, token);
        expect(Object.values(viaTcp)).toEqual(Array(Object.keys(viaTcp).length).fill("UNAUTHENTICATED"));
      }
      // the owner's Engine still serves the owner
      const status = await palisade(u.owner, ["engine", "status", "--config", config, "--data-dir", onTcp]);
      expect(status.code).toBe(0);

      for (const dataDir of [onUnix, onTcp]) {
        const files = readdirSync(dataDir).filter((f) => statSync(join(dataDir, f)).isFile());
        expect(files).toEqual(expect.arrayContaining(["engine.json", "engine.token", "engine.lock", "palisade.db"]));
        for (const f of files) {
          const read = await shAs(u.attacker, `cat ${join(dataDir, f)} 2>&1 >/dev/null && echo READ; true`);
          expect(`${f}: ${read.trim()}`).toBe(`${f}: cat: ${join(dataDir, f)}: Permission denied`);
        }
        // each file is the owner's alone, even without the 0700 directory around it
        const modes = files.map((f) => `${f} ${(statSync(join(dataDir, f)).mode & 0o777).toString(8)}`);
        expect(modes).toEqual(files.map((f) => `${f} 600`));
        expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      }
    });
  },
);
