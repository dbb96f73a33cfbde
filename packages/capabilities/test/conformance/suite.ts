import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
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

/** Runs one scenario against Palisade's client (client.mjs) and reads the checks it recorded. */
export async function runScenario(v: SuiteVersion, scenario: string, signal: AbortSignal): Promise<ScenarioResult> {
  const out = mkdtempSync(join(tmpdir(), "palisade-conformance-out-"));
  const args = [
    cli(v),
    "client",
    "--command",
    `${JSON.stringify(process.execPath)} ${JSON.stringify(ADAPTER)}`,
    "--scenario",
    scenario,
    "-o",
    out,
    // How long the suite lets the client run before it kills it: a bound for a client that hangs.
    // Scenarios take a few seconds each; a machine at full load stretches that several times over.
    "--timeout",
    "120000",
  ];
  if (v.specVersion) args.push("--spec-version", v.specVersion);
  // The suite exits non-zero when a check fails: the checks file says which, so that is not an error here.
  const proc = await run(process.execPath, args, { cwd: out, signal, maxBuffer: 16 << 20 }).catch(
    (err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? "", stderr: err.stderr ?? "" }),
  );
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
  rmSync(out, { recursive: true, force: true });
  const failed = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
  const passed = file !== undefined && failed.length === 0 && checks.some((c) => c.status === "SUCCESS");
  const explain = [
    ...failed.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? ""}`),
    ...(file ? [] : [`no checks recorded; suite output: ${(proc.stdout + proc.stderr).slice(-800)}`]),
    ...(adapterErr ? [`client stderr: ${adapterErr.slice(-800)}`] : []),
  ].join("\n");
  return { scenario, passed, checks, explain };
}
