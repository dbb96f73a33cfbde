import type { Detector } from "./types.js";
import { cmdText, commandViews, findCommand, firstView, hasFlag, inWorkspace, pathHit } from "./util.js";

const SYSTEM_DIRS =
  /^\/(etc|usr|bin|sbin|lib|lib32|lib64|libx32|boot|var|opt|srv|sys|proc|dev|root|home|snap|private|system|applications|library|users|volumes)(\/|$)/;
const FORK_HINT = /\(\s*\)\s*\{|fork|while/;
const SQL_DROP =
  /\b(drop\s+(table|database|schema|index)|truncate\s+(table\s+)?\w+|delete\s+from\s+[\w."`]+\s*(;|"|'|$))/i;
const ENDLESS_LOOP =
  /\b(while|until)\s+(true|:|\[\s*1\s*\]|\(\(\s*1\s*\)\)|false)\s*;?\s*do\b|\bfor\s*\(\(\s*;\s*;\s*\)\)|\bwhile\s*\(?\s*(True|1|true)\s*\)?\s*:/;
const DISK_TOOLS = /^(mkfs(\..*)?|mke2fs|mkswap|wipefs|blkdiscard|fdisk|sfdisk|parted|gdisk|format|diskutil)$/;
const DISK_DEV = /^\/dev\/(sd[a-z]|nvme\d|hd[a-z]|xvd[a-z]|vd[a-z]|mmcblk\d|disk\d|rdisk\d|md\d|dm-\d|mapper\/|loop\d)/;

function isRootish(path: string, home: string): boolean {
  const p = path.replace(/\/\*$/, "") || "/";
  return p === "/" || p === home || /^\/[^/]+$/.test(p) || (SYSTEM_DIRS.test(p) && p.split("/").length <= 3);
}

export const destructive: Detector[] = [
  {
    id: "destructive.rm-root",
    category: "destructive",
    severity: "block",
    description: "Recursive deletion of /, the home directory or a system directory",
    when: { commands: ["rm", "rmdir"], kinds: ["file-delete"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (c.name === "rm" || c.name === "rmdir") &&
          (hasFlag(c.args, "r", "--recursive") || hasFlag(c.args, "R") || c.args.includes("--no-preserve-root")),
      );
      if (c !== undefined) {
        if (c.args.includes("--no-preserve-root")) return { reason: `rm --no-preserve-root: ${cmdText(c)}` };
        const hit = s.paths.find((p) => p.from === "command" && p.op === "delete" && isRootish(p.path, s.ctx.home));
        if (hit !== undefined) return { reason: `recursive rm of ${hit.path}: ${cmdText(c)}` };
        if (c.args.some((a) => /^(\/|~|\$HOME)\/?\*?$|^\/\*$/.test(a)))
          return { reason: `recursive rm of the root or home: ${cmdText(c)}` };
      }
      if (s.kind === "file-delete") {
        const p = pathHit(s, (p) => isRootish(p, s.ctx.home.toLowerCase()) || p === s.ctx.workspace.toLowerCase());
        if (p !== undefined) return { reason: `delete of ${p.path}` };
      }
      return undefined;
    },
  },
  {
    id: "destructive.mass-delete",
    category: "destructive",
    severity: "escalate",
    description: "Recursive deletion outside the workspace, of the workspace itself, of .git, or with wildcards",
    when: { commands: ["rm", "shred", "srm", "wipe"], kinds: ["file-delete"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (c.name === "rm" && (hasFlag(c.args, "r", "--recursive") || hasFlag(c.args, "R"))) ||
          c.name === "shred" ||
          c.name === "srm" ||
          c.name === "wipe",
      );
      if (c !== undefined) {
        const hit = s.paths.find(
          (p) =>
            p.from === "command" &&
            p.op === "delete" &&
            (!inWorkspace(s, p.path) || p.path === s.ctx.workspace || /(^|\/)\.git$/.test(p.path)),
        );
        if (hit !== undefined) return { reason: `recursive delete of ${hit.path}: ${cmdText(c)}` };
        if (c.args.some((a) => a === "*" || a === "." || a === "./*" || a === ".*"))
          return { reason: `recursive delete with a wildcard: ${cmdText(c)}` };
        if (c.name !== "rm") return { reason: `secure deletion: ${cmdText(c)}` };
      }
      if (s.kind === "file-delete") {
        if (s.args["recursive"] === true) return { reason: "recursive delete requested" };
        const p = s.paths.find((p) => /[*?[]/.test(p.raw) || !inWorkspace(s, p.path));
        if (p !== undefined) return { reason: `delete outside the workspace or by wildcard: ${p.raw}` };
      }
      return undefined;
    },
  },
  {
    id: "destructive.disk",
    category: "destructive",
    severity: "block",
    description: "Formatting or overwriting disks and block devices",
    when: { commandNamed: (n) => DISK_TOOLS.test(n), writePaths: true },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          DISK_TOOLS.test(c.name) && (c.name !== "diskutil" || c.args.some((a) => /erase|partition|zero/i.test(a))),
      );
      if (c !== undefined) return { reason: `disk formatting: ${cmdText(c)}` };
      const w = s.paths.find((p) => (p.op === "write" || p.op === "delete") && DISK_DEV.test(p.path));
      if (w !== undefined) return { reason: `write to block device ${w.path}` };
      return undefined;
    },
  },
  {
    id: "destructive.fork-bomb",
    category: "destructive",
    severity: "block",
    description: "Fork bombs",
    when: { text: FORK_HINT },
    detect(s) {
      const views = commandViews(s).filter((v) => FORK_HINT.test(v.text));
      const v = firstView(
        views,
        /(?:^|[\s;&|({])([\w:.]{1,32})\s*\(\s*\)\s*\{[^}]{0,200}?\1\s*\|\s*\1\s*&|while\s+(true|:)\s*;\s*do\s+[^;]{0,200}&\s*done|fork\s*\(\s*\)\s*while|os\.fork\(\)[^\n]{0,200}while|while\s*(True|1)\s*:\s*os\.fork/,
      );
      return v !== undefined ? { reason: `fork bomb: ${v.match}` } : undefined;
    },
  },
  {
    id: "destructive.permissions-system",
    category: "destructive",
    severity: "block",
    description: "Recursive chmod/chown/chgrp of / or system directories",
    when: { commands: ["chmod", "chown", "chgrp"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) => (c.name === "chmod" || c.name === "chown" || c.name === "chgrp") && hasFlag(c.args, "R", "--recursive"),
      );
      if (c === undefined) return undefined;
      const hit = s.paths.find((p) => p.from === "command" && isRootish(p.path, s.ctx.home));
      return hit !== undefined ? { reason: `recursive ${c.name} of ${hit.path}` } : undefined;
    },
  },
  {
    id: "destructive.find-delete",
    category: "destructive",
    severity: "block",
    description: "find -delete / -exec rm: blocks over / or home, escalates elsewhere",
    when: { commands: ["find"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          c.name === "find" &&
          c.args.some(
            (a, i) =>
              a === "-delete" ||
              ((a === "-exec" || a === "-execdir") && /^(\/\S*\/)?(rm|shred|unlink)$/.test(c.args[i + 1] ?? "")),
          ),
      );
      if (c === undefined) return undefined;
      const root = c.args[0] ?? ".";
      const p = s.paths.find((p) => p.raw === root);
      if (p !== undefined && isRootish(p.path, s.ctx.home)) return { reason: `find deleting under ${p.path}` };
      return { reason: `find deleting files: ${cmdText(c)}`, severity: "escalate" };
    },
  },
  {
    id: "destructive.git-history",
    category: "destructive",
    severity: "escalate",
    description: "Git operations that destroy history or uncommitted work",
    when: { commands: ["git"] },
    detect(s) {
      const c = findCommand(s, (c) => {
        if (c.name !== "git") return false;
        const a = c.args.filter((x) => !/^-C$|^--git-dir/.test(x));
        const sub = a.find((x) => !x.startsWith("-")) ?? "";
        if (sub === "push")
          return a.some(
            (x) =>
              x === "-f" ||
              x.startsWith("--force") ||
              x === "--mirror" ||
              x === "--delete" ||
              x === "-d" ||
              /^\+/.test(x) ||
              /^:/.test(x),
          );
        if (sub === "reset") return a.includes("--hard");
        if (sub === "clean") return a.some((x) => /^-[a-z]*f/.test(x));
        if (sub === "checkout" || sub === "restore") return a.includes(".") && (a.includes("--") || sub === "restore");
        if (sub === "branch") return a.includes("-D");
        return (
          sub === "filter-branch" ||
          sub === "filter-repo" ||
          (sub === "reflog" && a.includes("expire")) ||
          (sub === "gc" && a.some((x) => x.startsWith("--prune")))
        );
      });
      return c !== undefined ? { reason: `history-destroying git command: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "destructive.sql-drop",
    category: "destructive",
    severity: "escalate",
    description: "DROP/TRUNCATE or unconditional DELETE in SQL run from the shell",
    when: { text: SQL_DROP },
    detect(s) {
      const v = firstView(commandViews(s), SQL_DROP);
      return v !== undefined ? { reason: `destructive SQL: ${v.match}` } : undefined;
    },
  },
  {
    id: "destructive.system-power",
    category: "destructive",
    severity: "block",
    description: "Shutting down the machine or killing every process",
    when: { commands: ["shutdown", "reboot", "halt", "poweroff", "init", "kill", "killall5", "systemctl"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          /^(shutdown|reboot|halt|poweroff)$/.test(c.name) ||
          (c.name === "init" && /^[06]$/.test(c.args[0] ?? "")) ||
          (c.name === "kill" && c.args.includes("-1")) ||
          c.name === "killall5" ||
          (c.name === "systemctl" && /^(poweroff|reboot|halt|kexec)$/.test(c.args[0] ?? "")),
      );
      return c !== undefined ? { reason: `stops the machine or all processes: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "destructive.overwrite-system",
    category: "destructive",
    severity: "block",
    description: "Writing, moving or deleting files in system directories",
    when: { writePaths: true },
    detect(s) {
      const p = s.paths.find(
        (p) =>
          (p.op === "write" || p.op === "delete") &&
          /^\/(etc|usr|bin|sbin|lib|lib64|boot|sys|proc|System|Library)(\/|$)/.test(p.path) &&
          !/^\/proc\/self\/fd/.test(p.path),
      );
      return p !== undefined ? { reason: `${p.op} in a system directory: ${p.path}` } : undefined;
    },
  },
  {
    id: "destructive.unbounded-loop",
    category: "destructive",
    severity: "escalate",
    description: "Loops without an end condition (resource exhaustion)",
    when: { text: ENDLESS_LOOP },
    detect(s) {
      const v = firstView(commandViews(s), ENDLESS_LOOP);
      return v !== undefined ? { reason: `endless loop: ${v.match}` } : undefined;
    },
  },
];
