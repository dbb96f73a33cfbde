// `palisade capability login <id>`: signs Palisade in to an HTTP MCP server with OAuth (the
// browser step). The tokens go to <data dir>/credentials.json (0600), where the Engine reads them;
// they are never printed.
import { join } from "node:path";
import type { McpOAuthConfig } from "@palisade/capabilities";
import { CliError, ExitCode } from "../cli/errors.js";
import { println } from "../cli/io.js";
import type { CommandContext } from "../cli/spec.js";
import { hintCommand, pathsOf } from "./common.js";

export async function capabilityLogin(ctx: CommandContext): Promise<number> {
  const [id] = ctx.positionals as [string];
  const { loadConfig } = await import("@palisade/config");
  const { loginMcpServer } = await import("@palisade/capabilities");
  const paths = pathsOf(ctx);
  const config = await loadConfig(paths.configFile, ctx.io.env);
  const entry = config.capabilities.find((c) => c.id === id);
  const mcp = entry?.["mcp"] as { url?: string; oauth?: McpOAuthConfig } | undefined;
  if (!entry || !mcp?.url) {
    throw new CliError(`${paths.configFile} has no MCP server over HTTP with id ${id}`, {
      hint: `an entry like \`- id: ${id}\\n  mcp: { url: https://… }\` (docs/capabilities.md); see ${hintCommand(ctx, "capability list")}`,
    });
  }
  if (mcp.oauth?.grant === "client_credentials") {
    println(
      ctx.io.stdout,
      `${id} uses grant: client_credentials: the Engine gets its token itself with the client's credential (oauth.clientSecret or oauth.privateKey, a stored secret), so there is nothing to sign in to. Store the secret with ${hintCommand(ctx, `capability credentials set ${id} <name>`)} and restart the Engine.`,
    );
    return ExitCode.OK;
  }
  // `${secret:NAME}`: from the credential store, else the environment, as the Engine reads it.
  const secretRef = /^\$\{secret:([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(mcp.oauth?.clientSecret ?? "");
  const { UserCredentialStore } = await import("@palisade/capabilities");
  const stored = secretRef
    ? await new UserCredentialStore(join(paths.dataDir, "credentials.json")).get("local", id, secretRef[1] as string)
    : undefined;
  const clientSecret = secretRef ? (stored ?? ctx.io.env[secretRef[1] as string]) : mcp.oauth?.clientSecret;
  const result = await loginMcpServer({
    config: { id, mcp: { url: mcp.url, ...(mcp.oauth ? { oauth: { ...mcp.oauth } } : {}) } },
    credentialsFile: join(paths.dataDir, "credentials.json"),
    ...(clientSecret ? { clientSecret } : {}),
    open: (url) => {
      // Headless too: the URL is all it takes, on any machine whose browser reaches 127.0.0.1 here.
      println(
        ctx.io.stderr,
        `Sign in to ${id} in your browser:\n\n  ${url.toString()}\n\nWaiting for the sign-in (5 minutes)…`,
      );
    },
  });
  println(
    ctx.io.stdout,
    result.authorized
      ? `Signed in to ${id}: ${result.toolCount} tools. The tokens are in ${join(paths.dataDir, "credentials.json")}; restart the Engine to use them.`
      : `${id} let Palisade in without signing in (${result.toolCount} tools): nothing was stored.`,
  );
  return ExitCode.OK;
}
