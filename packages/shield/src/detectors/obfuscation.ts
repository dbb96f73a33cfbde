import type { SimpleCommand } from "../normalize/shell.js";
import type { Detector } from "./types.js";
import { cmdText, findCommand, isCodeInterpreter, isShell } from "./util.js";

/** Every command name isDecoder accepts, apart from the code interpreters. */
const DECODERS = new Set([
  "base64",
  "base32",
  "basenc",
  "xxd",
  "openssl",
  "rev",
  "tr",
  "gunzip",
  "zcat",
  "bzcat",
  "xzcat",
  "uudecode",
  "unxz",
  "zstdcat",
  "gzip",
  "printf",
  "echo",
  "perl",
]);

function isDecoder(c: SimpleCommand): boolean {
  const a = c.args.join(" ");
  return (
    (c.name === "base64" && /(^|\s)(-d|--decode|-D)\b/.test(a)) ||
    c.name === "base32" ||
    c.name === "basenc" ||
    (c.name === "xxd" && /-r/.test(a)) ||
    (c.name === "openssl" && /\b(enc|base64)\b/.test(a) && /-d\b/.test(a)) ||
    c.name === "rev" ||
    (c.name === "tr" && /a-z|A-Z|n-za-m/i.test(a)) ||
    /^(gunzip|zcat|bzcat|xzcat|uudecode|unxz|zstdcat)$/.test(c.name) ||
    (c.name === "gzip" && /-d/.test(a)) ||
    (c.name === "printf" && /\\x[0-9a-f]{2}|\\[0-7]{3}/i.test(a)) ||
    (c.name === "echo" && /-e/.test(a) && /\\x|\\[0-7]{3}/.test(a)) ||
    (isCodeInterpreter(c.name) && /b64decode|base64|fromCharCode|decode\(|unhexlify|Buffer\.from\(/i.test(a)) ||
    (c.name === "perl" && /pack/.test(a))
  );
}

const runsCode = (c: SimpleCommand): boolean =>
  isShell(c.name) ||
  c.name === "eval" ||
  c.name === "source" ||
  c.name === "." ||
  (isCodeInterpreter(c.name) && c.args.every((a) => a.startsWith("-") && a !== "-c" && a !== "-e"));

export const obfuscation: Detector[] = [
  {
    id: "obfuscation.decode-to-shell",
    category: "obfuscation",
    severity: "block",
    description: "Decoded or reversed data executed by a shell (base64 -d | sh, eval $(... | xxd -r))",
    when: { commandNamed: (n) => DECODERS.has(n) || isCodeInterpreter(n) },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          isDecoder(c) &&
          (c.pipeline.slice(c.index + 1).some(runsCode) ||
            (c.parent !== undefined &&
              c.via === "subst" &&
              (runsCode(c.parent) || (c.parent.argv[0] ?? "").startsWith("$(")))),
      );
      return c !== undefined ? { reason: `decoded data executed: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "obfuscation.encoded-command",
    category: "obfuscation",
    severity: "escalate",
    description: "Commands hidden in encoded text (base64, hex, escapes) inside arguments",
    when: { commands: "any" },
    detect(s) {
      const c = s.commands.find(
        (c) =>
          c.via === "decoded" &&
          c.name.length > 0 &&
          /^[a-z0-9._-]+$/.test(c.name) &&
          (c.args.length > 0 || c.pipeline.length > 1),
      );
      return c !== undefined ? { reason: `encoded command: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "obfuscation.dynamic-command",
    category: "obfuscation",
    severity: "escalate",
    description: "Command names built at run time ($(...), variables, globs like /???/r?)",
    when: { commands: "any" },
    detect(s) {
      const c = findCommand(s, (c) => {
        const w = c.argv.find((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) ?? "";
        return w.startsWith("$") || /[*?[]/.test(w) || (c.wrappers.length > 0 && /[$*?[]/.test(c.name));
      });
      return c !== undefined
        ? { reason: `command name computed at run time: ${(c.argv[0] ?? "").slice(0, 60)}` }
        : undefined;
    },
  },
  {
    id: "obfuscation.unicode",
    category: "obfuscation",
    severity: "escalate",
    description: "Invisible, bidi or mixed-script look-alike characters in arguments",
    when: { unicodeTricks: true },
    detect(s) {
      const key = s.unicodeTricks[0];
      if (key === undefined) return undefined;
      return { reason: `hidden or look-alike characters in ${key}` };
    },
  },
  {
    id: "obfuscation.punycode",
    category: "obfuscation",
    severity: "escalate",
    description: "Internationalized (punycode) host names that may imitate known sites",
    when: { urls: true },
    detect(s) {
      const u = s.urls.find((u) => u.active && /(^|\.)xn--/.test(u.host));
      return u !== undefined ? { reason: `punycode host ${u.host}` } : undefined;
    },
  },
];
