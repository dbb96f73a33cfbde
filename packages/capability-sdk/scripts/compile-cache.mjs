// Fills each built capability's V8 code cache (`dist/compile-cache`, see src/compile-cache.ts):
// starts the capability as the Engine does (its unix socket, a secret on stdin), makes one
// Healthcheck, then closes stdin; the capability stops and Node writes the code it compiled on
// the way. Run by `make build` after `tsc -b`:
//   node packages/capability-sdk/scripts/compile-cache.mjs apps/capabilities/*/
// A capability that does not start keeps no cache (a warning, not a failed build: it then starts
// as it did without one).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "@palisade/protocol";
import { Capability } from "@palisade/protocol/capability";

const START_TIMEOUT_MS = 20_000;
const STAMP = "compile-cache.made-for";
const KEPT = "kept";
const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The newest modification time of the JavaScript under `dir` (its compile cache left out). */
function newestCode(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !/\.[cm]?js$/.test(e.name) || relative(dir, e.parentPath).split(sep).includes("compile-cache"))
      continue;
    newest = Math.max(newest, statSync(join(e.parentPath, e.name)).mtimeMs);
  }
  return newest;
}

/**
 * What a cache was made from: Node's version, and the newest code the capability can load (its
 * own dist, the workspace packages' dist, the installed dependencies). A cache made from the same
 * is kept: `make build` and `make run` do not start every capability again when nothing changed.
 */
function madeFrom(pkg) {
  const packages = join(repo, "packages");
  const code = [
    join(pkg, "dist"),
    ...readdirSync(packages)
      .map((p) => join(packages, p, "dist"))
      .filter((d) => existsSync(d)),
  ];
  const installed = join(repo, "node_modules", ".package-lock.json");
  const deps = existsSync(installed) ? statSync(installed).mtimeMs : 0;
  return `${process.version} ${String(Math.max(deps, ...code.map(newestCode)))}`;
}

async function prime(pkg) {
  const entry = join(pkg, "dist", "main.js");
  const cache = join(pkg, "dist", "compile-cache");
  if (!existsSync(entry)) {
    rmSync(cache, { recursive: true, force: true });
    return `${entry} is missing: run \`npx tsc -b\` first`;
  }
  const source = madeFrom(pkg);
  if (
    existsSync(cache) &&
    existsSync(join(pkg, "dist", STAMP)) &&
    readFileSync(join(pkg, "dist", STAMP), "utf8") === source
  )
    return KEPT;
  rmSync(cache, { recursive: true, force: true });
  mkdirSync(cache);
  const run = mkdtempSync(join(tmpdir(), "palisade-compile-cache-"));
  const socket = join(run, "capability.sock");
  const secret = randomBytes(24).toString("hex");
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PALISADE_CAPABILITY_SOCKET: socket },
    stdio: ["pipe", "ignore", "pipe"],
  });
  const exited = new Promise((r) => child.once("exit", (code, signal) => r({ code, signal })));
  let log = "";
  const timer = setTimeout(() => child.kill("SIGKILL"), START_TIMEOUT_MS);
  try {
    child.stdin.write(`${secret}\n`);
    const listening = new Promise((res, rej) => {
      child.stderr.on("data", (c) => {
        log += c;
        if (log.includes("listening on")) res();
      });
      void exited.then((e) => rej(new Error(`exited (${e.signal ?? e.code}) before listening: ${log.trim()}`)));
    });
    await listening;
    const client = createClient(Capability, `unix:${socket}`, {
      bearerToken: secret,
      defaultTimeoutMs: START_TIMEOUT_MS,
    });
    try {
      const health = await client.healthcheck({});
      if (!health.ready) throw new Error(`Healthcheck says not ready: ${health.message}`);
    } finally {
      client.close();
    }
    child.stdin.end(); // the Engine is gone: the capability stops, and Node writes the cache at exit
    const end = await exited;
    if (end.code !== 0) throw new Error(`exited (${end.signal ?? end.code}) after the Healthcheck: ${log.trim()}`);
    if (readdirSync(cache).length === 0) throw new Error("Node wrote no code cache");
    writeFileSync(join(pkg, "dist", STAMP), source);
    return undefined;
  } catch (err) {
    child.kill("SIGKILL");
    rmSync(cache, { recursive: true, force: true });
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
    rmSync(run, { recursive: true, force: true });
  }
}

const packages = process.argv.slice(2).map((p) => resolve(p));
const results = await Promise.all(packages.map(async (pkg) => ({ pkg, problem: await prime(pkg) })));
for (const { pkg, problem } of results)
  if (problem !== undefined && problem !== KEPT) console.warn(`compile cache: none for ${pkg}: ${problem}`);
const made = results
  .filter((r) => r.problem === undefined)
  .map((r) => relative(process.cwd(), join(r.pkg, "dist", "compile-cache")));
if (made.length > 0) console.log(`compile cache: ${made.join(", ")}`);
else if (results.every((r) => r.problem === KEPT)) console.log("compile cache up to date");
