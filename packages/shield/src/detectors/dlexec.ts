import type { SimpleCommand } from "../normalize/shell.js";
import type { Detector } from "./types.js";
import { cmdText, commandViews, DOWNLOADERS, findCommand, firstView, isCodeInterpreter, isShell } from "./util.js";

const RUNNERS = new Set(["eval", "source", ".", "exec"]);
const DOWNLOADER_NAMES = [...DOWNLOADERS, "nc", "openssl"];
const POWERSHELL =
  /\b(iex|invoke-expression)\b|downloadstring|downloadfile|-enc(odedcommand)?\s+[a-z0-9+/=]{16,}|net\.webclient|start-bitstransfer/i;
const CODE_FETCH =
  /(urlopen|urllib|requests\.get|http\.get|https\.get|fetch\(|LWP::|open-uri|Net::HTTP|file_get_contents\(\s*['"]https?:|wget|curl)/i;
const INSTALLERS = /^(pip[0-9.]*|pipx|npm|pnpm|yarn|bun|gem|cargo|go|composer|uv)$/;

/** A command that will execute what it reads on stdin. */
function runsStdin(c: SimpleCommand): boolean {
  if (isShell(c.name)) return !c.args.some((a) => a === "-c" || /^-[a-z]*c$/.test(a)) || c.args.length === 0;
  if (isCodeInterpreter(c.name))
    return (
      c.args.length === 0 ||
      c.args.every((a) => a === "-" || (/^-[a-zA-Z]$/.test(a) && a !== "-c" && a !== "-e" && a !== "-m"))
    );
  return (c.name === "source" || c.name === ".") && /^\/dev\/(stdin|fd\/0)$/.test(c.args[0] ?? "");
}

function isDownloader(c: SimpleCommand): boolean {
  return (
    DOWNLOADERS.has(c.name) ||
    (c.name === "nc" && !c.args.includes("-l")) ||
    (c.name === "openssl" && c.args[0] === "s_client")
  );
}

export const dlexec: Detector[] = [
  {
    id: "dlexec.pipe-to-shell",
    category: "download-exec",
    severity: "block",
    description: "Downloaded content piped into a shell or interpreter (curl | sh)",
    when: { commands: DOWNLOADER_NAMES },
    detect(s) {
      const c = findCommand(s, (c) => isDownloader(c) && c.pipeline.slice(c.index + 1).some(runsStdin));
      return c !== undefined
        ? {
            reason: `download piped into a shell: ${cmdText(c)} | ${c.pipeline
              .slice(c.index + 1)
              .map((x) => x.name)
              .join(" | ")}`,
          }
        : undefined;
    },
  },
  {
    id: "dlexec.subst-to-shell",
    category: "download-exec",
    severity: "block",
    description: "Downloaded content executed through $(...), <(...) or eval",
    when: { commands: DOWNLOADER_NAMES },
    detect(s) {
      const c = findCommand(s, (c) => {
        if (!isDownloader(c) || c.parent === undefined) return false;
        const p = c.parent;
        return (
          (c.via === "subst" || c.via === "procsubst") &&
          (isShell(p.name) ||
            RUNNERS.has(p.name) ||
            isCodeInterpreter(p.name) ||
            (p.argv[0] ?? "").startsWith("$(") ||
            (p.argv[0] ?? "").startsWith("<("))
        );
      });
      return c !== undefined
        ? { reason: `downloaded content executed by ${c.parent?.name ?? "?"}: ${cmdText(c)}` }
        : undefined;
    },
  },
  {
    id: "dlexec.fetch-and-run",
    category: "download-exec",
    severity: "block",
    description: "Download to a file, then make it executable or run it",
    when: { commands: DOWNLOADER_NAMES },
    detect(s) {
      const dl = s.commands.filter(isDownloader);
      if (dl.length === 0) return undefined;
      const files = new Set<string>();
      for (const d of dl) {
        d.args.forEach((a, i) => {
          if (/^(-o|-O|--output|--output-document)$/.test(a) && d.args[i + 1] !== undefined)
            files.add((d.args[i + 1] ?? "").replace(/^.*\//, ""));
          const m = /^(?:-o|-O|--output=|--output-document=)(.+)$/.exec(a);
          if (m !== null) files.add((m[1] ?? "").replace(/^.*\//, ""));
          if (
            /^https?:\/\//.test(a) &&
            (d.name === "wget" || d.args.includes("-O") || d.args.includes("--remote-name"))
          )
            files.add(a.replace(/[?#].*$/, "").replace(/^.*\//, ""));
        });
        for (const r of d.redirects) if (r.op.includes(">")) files.add(r.target.replace(/^.*\//, ""));
      }
      files.delete("");
      files.delete("-");
      const run = s.commands.find((c) => {
        if (c.name === "chmod" && c.args.some((a) => /\+x|^[0-7]?[0-7][1357][0-7]*$/.test(a))) return true;
        const target =
          isShell(c.name) || isCodeInterpreter(c.name) || c.name === "source" || c.name === "."
            ? (c.args.find((a) => !a.startsWith("-")) ?? "")
            : (c.argv[0] ?? "");
        return files.has(target.replace(/^.*\//, "")) && !isDownloader(c);
      });
      return run !== undefined ? { reason: `downloads a file and then runs it: ${cmdText(run)}` } : undefined;
    },
  },
  {
    id: "dlexec.powershell",
    category: "download-exec",
    severity: "block",
    description: "PowerShell download cradles and encoded commands",
    when: { text: POWERSHELL },
    detect(s) {
      const v = firstView(commandViews(s), POWERSHELL);
      return v !== undefined ? { reason: `PowerShell download/execute: ${v.match}` } : undefined;
    },
  },
  {
    id: "dlexec.code-fetch-exec",
    category: "download-exec",
    severity: "block",
    description: "Interpreter one-liners that fetch code and execute it",
    when: { text: CODE_FETCH },
    detect(s) {
      for (const v of commandViews(s)) {
        if (
          CODE_FETCH.test(v.text) &&
          /\b(exec|eval)\s*\(|\(\s*eval\s*\)|new Function\(|Kernel\.eval|\beval\b\s*\$|compile\(|__import__\(|\bexec\b\s+\(/i.test(
            v.text,
          ) &&
          /\b(python[0-9.]*|node|perl|ruby|php|deno)\b/.test(v.text)
        ) {
          return { reason: "interpreter code that downloads and evaluates code" };
        }
      }
      return undefined;
    },
  },
  {
    id: "dlexec.install-from-url",
    category: "download-exec",
    severity: "escalate",
    description: "Package installs from URLs, git sources or tarballs instead of the registry",
    when: { commandNamed: (n) => INSTALLERS.test(n) },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          INSTALLERS.test(c.name) &&
          /^(install|add|i|get|run)$/.test(c.args.find((a) => !a.startsWith("-")) ?? "") &&
          c.args.some((a) =>
            /^(https?:|git\+|git:|github:|gitlab:|bitbucket:|file:|[\w.-]+\/[\w.-]+#|.*\.(tgz|tar\.gz|whl|zip)$)/.test(
              a,
            ),
          ),
      );
      return c !== undefined ? { reason: `install from outside the registry: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "dlexec.stdin-shell",
    category: "download-exec",
    severity: "escalate",
    description: "Output of another program piped into a shell or interpreter",
    when: { commandNamed: (n) => isShell(n) || isCodeInterpreter(n) || n === "source" || n === "." },
    detect(s) {
      const c = findCommand(s, (c) => c.index > 0 && runsStdin(c));
      return c !== undefined
        ? { reason: `program output executed by ${c.name}: ${c.pipeline.map((x) => x.name).join(" | ")}` }
        : undefined;
    },
  },
  {
    id: "dlexec.remote-package-run",
    category: "download-exec",
    severity: "escalate",
    description: "Running packages fetched on the fly (npx -y, pnpm dlx, bunx, uvx, pipx run)",
    when: { commands: ["npx", "pnpm", "yarn", "bunx", "uvx", "pipx", "npm"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (c.name === "npx" &&
            c.args.some(
              (a) => a === "-y" || a === "--yes" || /@(latest|next|\d)/.test(a) || /^(https?:|github:|git\+)/.test(a),
            )) ||
          ((c.name === "pnpm" || c.name === "yarn") && c.args[0] === "dlx") ||
          c.name === "bunx" ||
          c.name === "uvx" ||
          (c.name === "pipx" && c.args[0] === "run") ||
          (c.name === "npm" && c.args[0] === "exec" && c.args.includes("--yes")),
      );
      return c !== undefined ? { reason: `downloads and runs a package: ${cmdText(c)}` } : undefined;
    },
  },
];
