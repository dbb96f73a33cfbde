/**
 * The class of an action, for "allow for this session": its effect class. The same tool with the
 * same commands (program, subcommand, the options that change what it does, see
 * command-effect.ts), the same path scope (a written file's directory, a deleted file itself),
 * the same hosts and recipients, and the same switches (boolean arguments, e.g. `recursive`).
 * A session grant covers its class, never the whole tool; a destructive action has no class a
 * grant covers (asked every time). Tools whose effect has no such shape (agents, unknown tools)
 * are classed by their exact arguments.
 */
import { commandEffect } from "./command-effect.js";
import { canonicalArgs, type Subject } from "./normalize/subject.js";

export interface ActionClass {
  /** Equal for two actions of the same class. */
  key: string;
  /** What the class covers, for the person deciding. */
  label: string;
  /** Set when no grant may cover the action: why it is asked every time (a recursive delete, …). */
  askEveryTime?: string;
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
    [...new Set(s.paths.filter(op).map((p) => (p.op === "delete" ? p.path : `${dirOf(p.path)}/`)))]
      .map((p) => relative(p, ws))
      .sort();
  const hosts = [...new Set(s.urls.filter((u) => u.active).map((u) => u.host))].sort();
  const parts: string[] = [];
  const partKeys: string[] = [];
  const deleted: string[] = [];
  let destructive: string | undefined;
  for (const c of s.commands) {
    const effect = commandEffect(c);
    parts.push(effect.text);
    partKeys.push(effect.key);
    deleted.push(...effect.deletes.map((p) => relative(p, ws)));
    destructive ??= effect.destructive;
  }
  if (s.kind === "file-delete" && s.args["recursive"] === true) destructive ??= "a recursive delete";
  const unique = [...new Set(parts)].sort();
  const switches = Object.entries(s.args)
    .filter(([, v]) => typeof v === "boolean")
    .map(([k, v]) => `${k}=${String(v)}`)
    .sort();
  let label: string;
  // the key spells the same parts normalized (`-rf` and `-fr` are one class)
  let keyText = "";
  switch (s.kind) {
    case "shell":
    case "file-read":
    case "file-write":
    case "file-delete":
    case "file-move":
    case "file-copy":
    case "document-write":
    case "document-read": {
      const paths = [...new Set([...scopes(() => true), ...deleted])].sort();
      const describe = (commands: readonly string[]): string =>
        [
          commands.length > 0 ? `commands ${commands.join(", ")}` : "",
          paths.length > 0 ? `paths under ${paths.join(", ")}` : "",
          hosts.length > 0 ? `hosts ${hosts.join(", ")}` : "",
          switches.length > 0 ? `with ${switches.join(", ")}` : "",
        ]
          .filter(Boolean)
          .join("; ") || "no paths";
      label = describe(unique);
      keyText = describe([...new Set(partKeys)].sort());
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
  const cls = { key: `${s.tool}\u0000${s.kind}\u0000${keyText || label}`, label: `${s.tool}: ${label}` };
  return destructive === undefined ? cls : { ...cls, askEveryTime: destructive };
}
