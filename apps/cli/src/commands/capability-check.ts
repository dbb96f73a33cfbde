import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { McpCapabilityConfig, McpCheckReport } from "@palisade/capabilities";
import { CliError, ExitCode, UsageError } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { flag, pathsOf, stringOption, workspaceOf } from "./common.js";

export type LaunchFlags = { address: string } | { command: string[]; protocol?: "palisade" | "selu" } | undefined;

/** `--address ADDR` or `--command "CMD ARGS"` (at most one), `--protocol` with --command. */
export function launchFlags(ctx: CommandContext): LaunchFlags {
  const address = stringOption(ctx, "address");
  const command = stringOption(ctx, "command");
  const protocol = stringOption(ctx, "protocol");
  if (address && command) throw new UsageError("use --address or --command, not both");
  if (protocol !== undefined && protocol !== "palisade" && protocol !== "selu")
    throw new UsageError(`--protocol must be palisade or selu, got '${protocol}'`);
  if (protocol !== undefined && !command) throw new UsageError("--protocol is only used with --command");
  if (address) return { address };
  if (command) {
    const words = command.split(/\s+/).filter((s) => s !== "");
    if (words.length === 0) throw new UsageError("--command is empty", 'e.g. --command "node caps/pdf/dist/main.js"');
    // `node` is the Node Palisade runs on (>= 22.12), as in a config entry's command
    if (words[0] === "node") words[0] = process.execPath;
    return { command: words, ...(protocol ? { protocol } : {}) };
  }
  return undefined;
}

/** The MCP servers of the config, by id. */
async function mcpServersOf(ctx: CommandContext): Promise<Map<string, McpCapabilityConfig>> {
  const [{ loadConfig }, { isMcpConfig, validateCapabilityConfigs }] = await Promise.all([
    import("@palisade/config"),
    import("@palisade/capabilities"),
  ]);
  const paths = pathsOf(ctx);
  const config = await loadConfig(paths.configFile, ctx.io.env);
  const entries = validateCapabilityConfigs(config.capabilities, {
    file: paths.configFile,
    baseDir: dirname(paths.configFile),
  });
  return new Map(entries.filter(isMcpConfig).map((c) => [c.id, c]));
}

/** Starts an MCP server of the config in the sandbox the Engine gives it and reports on it. */
async function checkMcp(ctx: CommandContext, c: McpCapabilityConfig): Promise<McpCheckReport> {
  const { checkMcpServer, sandboxedStdio } = await import("@palisade/capabilities");
  const paths = pathsOf(ctx);
  const runRoot = mkdtempSync(join(tmpdir(), "palisade-mcp-"));
  try {
    const mcpWrap = sandboxedStdio({
      workspace: workspaceOf(ctx),
      protect: [paths.dataDir, paths.configFile],
      runRoot,
    });
    return await checkMcpServer(c, { dataDir: paths.dataDir, mcpWrap });
  } finally {
    rmSync(runRoot, { recursive: true, force: true });
  }
}

export async function capabilityCheck(ctx: CommandContext): Promise<number> {
  const { CapabilityHost, ValidationError, formatMcpCheck, loadManifest } = await import("@palisade/capabilities");
  const launch = launchFlags(ctx);
  const json = flag(ctx, "json");
  const dataDir = pathsOf(ctx).dataDir;
  let failed = 0;
  const results: unknown[] = [];
  let servers: Map<string, McpCapabilityConfig> | undefined;
  for (const given of ctx.positionals) {
    const path = resolve(ctx.io.cwd, given);
    if (!existsSync(path) && !launch) {
      servers ??= await mcpServersOf(ctx);
      const server = servers.get(given);
      if (!server)
        throw new CliError(
          `${given}: no such manifest file, and no MCP server with that id in ${pathsOf(ctx).configFile}`,
          { hint: "give a manifest path, or the id of an MCP server of the config (see docs/capabilities.md)" },
        );
      const report = await checkMcp(ctx, server);
      if (!report.ok) failed++;
      results.push(report);
      if (!json) println(ctx.io.stdout, formatMcpCheck(report));
      continue;
    }
    try {
      const m = await loadManifest(path);
      let health: string | undefined;
      if (launch) {
        const host = new CapabilityHost({
          dataDir,
          capabilities: [{ id: m.id, manifest: path, ...launch, ...("command" in launch ? { cwd: ctx.io.cwd } : {}) }],
          startupTimeoutMs: 10_000,
          env: {},
        });
        const [s] = await host.start();
        await host.stop();
        health = `${s?.state ?? "unknown"}${s?.message ? `: ${s.message}` : ""}`;
        if (s?.state !== "ready") failed++;
      }
      results.push({
        manifest: m.file,
        id: m.id,
        ok: true,
        tools: m.tools.length,
        warnings: m.warnings,
        ...(health ? { health } : {}),
      });
      if (!json) {
        const tools = m.toolSource === "dynamic" ? "dynamic tools" : `${m.tools.length} tool(s)`;
        println(
          ctx.io.stdout,
          `ok ${m.file}: ${m.id}, ${tools}${health ? `; health ${health}` : ""}${m.warnings.map((w) => `\n  warning: ${w}`).join("")}`,
        );
      }
    } catch (err) {
      failed++;
      if (err instanceof ValidationError) {
        results.push({ manifest: path, ok: false, problems: err.problems });
        if (!json) println(ctx.io.stdout, err.message);
      } else if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        results.push({ manifest: path, ok: false, problems: [{ message: "no such file" }] });
        if (!json) println(ctx.io.stdout, `${path}: no such file`);
      } else throw new CliError(`${path}: ${(err as Error).message}`);
    }
  }
  if (json) println(ctx.io.stdout, JSON.stringify(results, null, 2));
  return failed > 0 ? ExitCode.FAILURE : ExitCode.OK;
}
