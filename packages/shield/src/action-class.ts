/**
 * The class of an action, for "allow for this session": the same tool with the same command
 * prefix (program and subcommand), the same path scope (a written file's directory, a deleted
 * file itself) and the same hosts and recipients. A session grant covers its class, never the
 * whole tool. Tools whose effect has no such shape (agents, unknown tools) are classed by their
 * exact arguments.
 */
import { canonicalArgs, type Subject } from "./normalize/subject.js";

/** Programs whose first word after the options is a subcommand that changes what they do. */
const SUBCOMMANDS = new Set(["git", "npm", "pnpm", "yarn", "bun", "npx", "cargo", "go", "docker", "podman", "kubectl", "pip", "pip3", "uv", "poetry", "make", "systemctl", "apt", "apt-get", "brew", "gh", "terraform", "helm", "dotnet", "mvn", "gradle", "gradlew"]);

export interface ActionClass {
  /** Equal for two actions of the same class. */
  key: string;
  /** What the class covers, for the person deciding. */
  label: string;
}

function dirOf(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

function relative(p: string, workspace: string): string {
  if (p === workspace || p === `${workspace}/`) return "./";
  return p.startsWith(`${workspace}/`) ? p.slice(workspace.length + 1) : p;
}

export function actionClassOf(s: Subject): ActionClass {
  const ws = s.ctx.workspace;
  const scopes = (op: (p: Subject["paths"][number]) => boolean): string[] =>
    [...new Set(s.paths.filter(op).map((p) => (p.op === "delete" ? p.path : `${dirOf(p.path)}/`)))].map((p) => relative(p, ws)).sort();
  const hosts = [...new Set(s.urls.filter((u) => u.active).map((u) => u.host))].sort();
  const parts: string[] = [];
  if (s.commands.length > 0) {
    for (const c of s.commands) {
      const sub = SUBCOMMANDS.has(c.name) ? c.args.find((a) => !a.startsWith("-")) : undefined;
      parts.push(sub === undefined ? c.name : `${c.name} ${sub}`);
    }
  }
  const unique = [...new Set(parts)].sort();
  let label: string;
  switch (s.kind) {
    case "shell":
    case "file-read":
    case "file-write":
    case "file-delete":
    case "file-move":
    case "file-copy":
    case "document-write":
    case "document-read": {
      const paths = scopes(() => true);
      label = [unique.length > 0 ? `commands ${unique.join(", ")}` : "", paths.length > 0 ? `paths under ${paths.join(", ")}` : "", hosts.length > 0 ? `hosts ${hosts.join(", ")}` : ""].filter(Boolean).join("; ") || "no paths";
      break;
    }
    case "http": {
      const m = s.args[s.spec.method ?? "method"];
      label = `${typeof m === "string" ? m.toUpperCase() : "GET"} to ${hosts.join(", ") || "no host"}`;
      break;
    }
    case "mail":
      label = `mail to ${[...new Set(s.recipients)].sort().join(", ") || "nobody"}`;
      break;
    default:
      label = `exactly these arguments ${canonicalArgs(s.args).slice(0, 200)}`;
      return { key: `${s.tool}\u0000${canonicalArgs(s.args)}`, label };
  }
  return { key: `${s.tool}\u0000${s.kind}\u0000${label}`, label: `${s.tool}: ${label}` };
}
