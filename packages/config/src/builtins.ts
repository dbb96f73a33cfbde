// The built-in capabilities registered by default. Each package's `/launch` module exports
// `manifestPath` and `command` (without loading the capability's code into the Engine); files
// and shell act in the Engine's workspace. They are written with the Palisade SDK, so they are
// launched on a unix socket with a per-launch secret. A package that is not installed is
// skipped with a log line.
import type { CapabilityEntry } from "./config.js";

// Every built-in runs in a bubblewrap sandbox built from its manifest. http and mail reach the
// network only through the Engine's egress proxy (their manifests' network policy); files and
// shell act in the workspace.
const BUILTINS = [
  { id: "files", pkg: "@palisade/capability-files", workspace: true },
  { id: "shell", pkg: "@palisade/capability-shell", workspace: true },
  { id: "http", pkg: "@palisade/capability-http", workspace: false },
  { id: "documents", pkg: "@palisade/capability-documents", workspace: false },
  { id: "mail", pkg: "@palisade/capability-mail", workspace: false },
] as const;

interface BuiltinModule {
  manifestPath: string;
  command: readonly string[];
}

function isBuiltin(m: unknown): m is BuiltinModule {
  const o = m as Partial<BuiltinModule> | null;
  return typeof o?.manifestPath === "string" && Array.isArray(o.command);
}

export async function builtinCapabilities(workspace: string, log: (line: string) => void): Promise<CapabilityEntry[]> {
  const out: CapabilityEntry[] = [];
  for (const b of BUILTINS) {
    let mod: unknown;
    try {
      mod = await import(`${b.pkg}/launch`);
    } catch (err) {
      log(`built-in capability ${b.id} is not available (${(err as Error).message.split("\n")[0]})`);
      continue;
    }
    if (!isBuiltin(mod)) {
      log(`built-in capability ${b.id}: ${b.pkg} does not export manifestPath and command`);
      continue;
    }
    out.push({
      id: b.id,
      manifest: mod.manifestPath,
      command: [...mod.command],
      protocol: "palisade",
      ...(b.workspace ? { config: { workspace } } : {}),
    });
  }
  return out;
}

/**
 * The built-ins still launched as shipped after the config was merged in: same manifest and
 * command, no address, image or MCP server in their place. A configured server that takes a
 * built-in's id is someone else's code, and its results are third-party content.
 */
export function ownCapabilityIds(
  builtins: readonly CapabilityEntry[],
  merged: readonly CapabilityEntry[],
): Set<string> {
  const own = new Set<string>();
  for (const b of builtins) {
    const m = merged.find((e) => e.id === b.id);
    if (m === undefined) continue;
    const replaced = ["address", "image", "mcp"].some((k) => k in m);
    if (!replaced && m.manifest === b.manifest && JSON.stringify(m.command) === JSON.stringify(b.command))
      own.add(b.id);
  }
  return own;
}
