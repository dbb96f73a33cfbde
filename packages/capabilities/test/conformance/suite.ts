import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

/** One pinned release of the official MCP conformance suite (installed under an npm alias). */
export interface SuiteVersion {
  /** The npm alias in packages/capabilities/package.json. */
  alias: string;
  /** Passed as --spec-version (and so as MCP_CONFORMANCE_PROTOCOL_VERSION to the client). */
  specVersion?: string;
}

export interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

export interface ScenarioResult {
  scenario: string;
  passed: boolean;
  checks: Check[];
  /** The failed checks with their messages, and the adapter's stderr tail: what a failure shows. */
  explain: string;
}

function cli(v: SuiteVersion): string {
  return join(dirname(require.resolve(`${v.alias}/package.json`)), "dist", "index.js");
}

const ADAPTER = join(here, "client.mjs");

/** The client scenarios the release lists for its spec version. */
export async function clientScenarios(v: SuiteVersion): Promise<string[]> {
  const { stdout } = await run(process.execPath, [
    cli(v),
    "list",
    "--client",
    ...(v.specVersion ? ["--spec-version", v.specVersion] : []),
  ]);
  return [...stdout.matchAll(/^ {2}- (\S+) \[/gm)].map((m) => m[1] as string);
}

/** How many clients run at once (a scenario's servers wait, cheaply, for their client's turn). */
const CLIENTS_AT_ONCE = 5;

/**
 * Hands out CLIENTS_AT_ONCE turns over a unix socket: client.mjs connects (PALISADE_CONFORMANCE_TURNS),
 * starts when it reads a byte and holds its turn until its process ends and the socket closes.
 */
async function startTurns(dir: string): Promise<{ path: string; close(): Promise<void> }> {
  const path = join(dir, "turns.sock");
  const waiting: Socket[] = [];
  let running = 0;
  const next = (): void => {
    while (running < CLIENTS_AT_ONCE && waiting.length > 0) {
      const socket = waiting.shift() as Socket;
      if (socket.destroyed) continue;
      running++;
      socket.once("close", () => {
        running--;
        next();
      });
      socket.write("1");
    }
  };
  const server = createServer((socket) => {
    socket.on("error", () => socket.destroy());
    waiting.push(socket);
    next();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, resolve);
  });
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of waiting) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Runs every scenario of `scenarios` against Palisade's client (client.mjs) with one start of the
 * suite (`conformance client --suite all`, which runs them side by side, CLIENTS_AT_ONCE clients at
 * a time), and reads the checks each scenario recorded. The scenarios in `alone` are then run again,
 * each with a start of its own, and that result counts: their checks time the client to a few
 * hundred milliseconds, which other scenarios' servers in the same process would skew.
 */
export async function runScenarios(
  v: SuiteVersion,
  scenarios: string[],
  alone: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<Map<string, ScenarioResult>> {
  const out = mkdtempSync(join(tmpdir(), "palisade-conformance-out-"));
  try {
    const turns = await startTurns(out);
    const proc = await runSuite(v, ["--suite", "all"], out, signal, { PALISADE_CONFORMANCE_TURNS: turns.path }).finally(
      () => turns.close(),
    );
    const results = new Map<string, ScenarioResult>();
    for (const scenario of scenarios) results.set(scenario, readResult(out, scenario, proc));
    for (const scenario of scenarios.filter((s) => alone.has(s))) {
      const own = mkdtempSync(join(out, "alone-"));
      results.set(scenario, readResult(own, scenario, await runSuite(v, ["--scenario", scenario], own, signal, {})));
    }
    return results;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** One start of the suite's client command with results in `out`; its output, whatever its exit code. */
async function runSuite(
  v: SuiteVersion,
  which: string[],
  out: string,
  signal: AbortSignal,
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  const args = [
    cli(v),
    "client",
    "--command",
    `${JSON.stringify(process.execPath)} ${JSON.stringify(ADAPTER)}`,
    ...which,
    "-o",
    out,
    // How long the suite lets a client run before it kills it, its wait for a turn included: a bound
    // for a client that hangs. Scenarios take a few seconds each; a machine at full load stretches
    // that several times over.
    "--timeout",
    "300000",
  ];
  if (v.specVersion) args.push("--spec-version", v.specVersion);
  // The suite exits non-zero when a check fails: the checks files say which, so that is not an error here.
  return run(process.execPath, args, { cwd: out, signal, maxBuffer: 16 << 20, env: { ...process.env, ...env } }).catch(
    (err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? "", stderr: err.stderr ?? "" }),
  );
}

/** The checks one scenario recorded under `out`, and what a failure shows. */
function readResult(out: string, scenario: string, proc: { stdout: string; stderr: string }): ScenarioResult {
  // Results go to <out>/<scenario>-<timestamp>/ ("auth/x" is a subdirectory).
  const parent = dirname(join(out, scenario));
  const stem = `${basename(scenario)}-2`;
  const entry = existsSync(parent) ? readdirSync(parent).find((d) => d.startsWith(stem)) : undefined;
  const dir = entry ? join(parent, entry) : undefined;
  const file = dir && existsSync(join(dir, "checks.json")) ? join(dir, "checks.json") : undefined;
  let checks: Check[] = [];
  let adapterErr = "";
  if (dir && file) {
    checks = JSON.parse(readFileSync(file, "utf8")) as Check[];
    adapterErr = existsSync(join(dir, "stderr.txt")) ? readFileSync(join(dir, "stderr.txt"), "utf8") : "";
  }
  const failed = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
  const passed = file !== undefined && failed.length === 0 && checks.some((c) => c.status === "SUCCESS");
  const explain = [
    ...failed.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ""}`),
    ...(file ? [] : [`no checks recorded; suite output: ${(proc.stdout + proc.stderr).slice(-800)}`]),
    ...(adapterErr ? [`client stderr: ${adapterErr.slice(-800)}`] : []),
  ].join("\n");
  return { scenario, passed, checks, explain };
}
