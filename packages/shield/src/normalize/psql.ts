/**
 * `psql` as a pattern may cover it: running SQL files against a database on this machine
 * (`psql -d app_dev -f migrations/001.sql`). Any other use — SQL or meta-commands on the command
 * line (`-c`, where `\!` runs a shell), SQL from stdin, a host that is not local (an option, a
 * connection string or URL, `PGHOST=` in front), an option not listed here — is a hazard: the
 * pattern names the program, not where it connects or what it is made to run. The files' own
 * shell escapes (`\!`, `COPY … PROGRAM`) are read when the file is written (see `sqlShellLines`).
 */
import type { SimpleCommand } from "./command.js";

const LOCAL_HOST = /^(localhost|127\.0\.0\.1|::1|\[::1\]|\/[\w./-]*)$/i;
/** Options without a value that change nothing about where psql connects or what it runs. */
const FLAGS =
  /^(-[Xq1aebwnsE]+|--(no-psqlrc|quiet|single-transaction|echo-all|echo-errors|echo-queries|no-password|echo-hidden))$/;
/** Options with a value: -d/-U/-p/-v name, the file, and a host checked below. */
const VALUED = [
  "-f",
  "--file",
  "-d",
  "--dbname",
  "-U",
  "--username",
  "-p",
  "--port",
  "-v",
  "--set",
  "--variable",
  "-h",
  "--host",
];

function split(a: string): { name: string; inline: string | undefined } | undefined {
  for (const n of VALUED) {
    if (a === n) return { name: n, inline: undefined };
    if (n.startsWith("--") && a.startsWith(`${n}=`)) return { name: n, inline: a.slice(n.length + 1) };
    if (!n.startsWith("--") && a.startsWith(n) && a.length > n.length) return { name: n, inline: a.slice(n.length) };
  }
  return undefined;
}

/** The host a connection string or URL names (`host=…`, `postgres://user@host/db`), if any. */
function conninfoHost(s: string): string | undefined {
  const url = /^postgres(?:ql)?:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?]*)/i.exec(s);
  if (url !== null) return url[1] === "" ? "localhost" : url[1];
  const kv = /(?:^|\s)(?:host|hostaddr)\s*=\s*'?([^'\s]+)/i.exec(s);
  return kv?.[1];
}

export function psqlHazard(c: Pick<SimpleCommand, "argv" | "name" | "args">): string | undefined {
  const at = c.argv.findIndex((w) => w.split("/").pop()?.toLowerCase() === c.name);
  if (c.argv.slice(0, Math.max(at, 0)).some((w) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)))
    return "psql with environment variables set in front (PGHOST, PGSERVICE, ... choose the server)";
  let files = 0;
  for (let i = 0; i < c.args.length; i++) {
    const a = c.args[i] ?? "";
    if (FLAGS.test(a)) continue;
    const opt = split(a);
    if (opt === undefined) {
      if (a.startsWith("-")) return `psql option ${a} is not one a pattern can vouch for`;
      const host = conninfoHost(a);
      if (host !== undefined && !LOCAL_HOST.test(host)) return `psql connects to ${host}, not a local database`;
      if (host === undefined && /[=:/@]/.test(a)) return `psql connection ${a} is not a plain database name`;
      continue;
    }
    const value = opt.inline ?? c.args[++i] ?? "";
    if (opt.name === "-f" || opt.name === "--file") {
      if (value === "-" || value === "") return "psql -f - runs SQL from stdin";
      files++;
    } else if (opt.name === "-h" || opt.name === "--host") {
      if (!LOCAL_HOST.test(value)) return `psql connects to ${value}, not a local database`;
    } else if (opt.name === "-d" || opt.name === "--dbname") {
      const host = conninfoHost(value);
      if (host !== undefined && !LOCAL_HOST.test(host)) return `psql connects to ${host}, not a local database`;
      if (host === undefined && /[=:/@]/.test(value)) return `psql connection ${value} is not a plain database name`;
    }
  }
  return files === 0 ? "psql without -f reads SQL from stdin or a terminal" : undefined;
}

/** psql meta-commands and SQL in a file that run a program: `\! cmd`, `\copy … program 'cmd'`, `COPY … PROGRAM 'cmd'`. */
export function sqlShellLines(content: string): string {
  const out: string[] = [];
  for (const line of content.split("\n")) {
    const bang = /^\s*\\!\s*(.*)$/.exec(line);
    if (bang !== null) out.push(bang[1] ?? "");
    for (const m of line.matchAll(/\bprogram\s+'((?:[^']|'')*)'/gi)) out.push((m[1] ?? "").replace(/''/g, "'"));
    if (/^\s*\\(o|out|g|gexec|w|write)\b\s*\|/.test(line)) out.push(line.replace(/^\s*\\\w+\s*\|/, ""));
  }
  return out.join("\n");
}
