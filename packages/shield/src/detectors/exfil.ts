import type { Detector } from "./types.js";
import { uploadToUserHost } from "./deploy-upload.js";
import { cmdText, findCommand, hasEgress } from "./util.js";

/** Capture, paste and tunnel services that exist to receive data from anywhere. */
export const CAPTURE_HOSTS = [
  "webhook.site",
  "*.webhook.site",
  "requestbin.net",
  "*.requestbin.net",
  "requestbin.com",
  "*.requestbin.com",
  "*.pipedream.net",
  "pipedream.net",
  "*.ngrok.io",
  "*.ngrok-free.app",
  "*.ngrok.app",
  "*.ngrok.dev",
  "*.burpcollaborator.net",
  "*.oastify.com",
  "*.interact.sh",
  "*.interactsh.com",
  "*.oast.pro",
  "*.oast.live",
  "*.oast.site",
  "*.oast.online",
  "*.oast.fun",
  "*.oast.me",
  "*.dnslog.cn",
  "*.ceye.io",
  "canarytokens.com",
  "*.canarytokens.com",
  "pastebin.com",
  "*.pastebin.com",
  "paste.ee",
  "hastebin.com",
  "toptal.com",
  "ghostbin.com",
  "ghostbin.co",
  "0x0.st",
  "transfer.sh",
  "termbin.com",
  "file.io",
  "ix.io",
  "sprunge.us",
  "dpaste.com",
  "dpaste.org",
  "paste.rs",
  "bashupload.com",
  "catbox.moe",
  "litterbox.catbox.moe",
  "tmpfiles.org",
  "temp.sh",
  "*.trycloudflare.com",
  "*.loca.lt",
  "localtunnel.me",
  "serveo.net",
  "*.serveo.net",
  "pastes.io",
  "rentry.co",
  "controlc.com",
  "beeceptor.com",
  "*.beeceptor.com",
  "postb.in",
  "*.free.beeceptor.com",
  "hookbin.com",
  "*.x.pipedream.net",
  "requestcatcher.com",
  "*.requestcatcher.com",
  "*.requestrepo.com",
  "ptpb.pw",
  "anonfiles.com",
  "gofile.io",
  "*.gofile.io",
  "wetransfer.com",
  "send.vis.ee",
  "oshi.at",
  "filebin.net",
];
const CAPTURE_SET = new Set(CAPTURE_HOSTS.map((h) => h.replace(/^\*\./, "")));

/** The host or one of its parent domains is a capture service (`*.x` entries match x too). */
function isCaptureHost(host: string): boolean {
  for (let h = host; h.includes("."); h = h.slice(h.indexOf(".") + 1)) if (CAPTURE_SET.has(h)) return true;
  return false;
}

const CHAT_WEBHOOKS =
  /^(hooks\.slack\.com|(discord|discordapp)\.com|api\.telegram\.org|outlook\.office\.com|.*\.webhook\.office\.com)$/;
const DISPOSABLE_MAIL =
  /@(mailinator\.com|guerrillamail\.\w+|sharklasers\.com|10minutemail\.\w+|temp-mail\.\w+|tempmail\.\w+|yopmail\.\w+|trashmail\.\w+|dispostable\.com|maildrop\.cc|getnada\.com|mohmal\.com|throwawaymail\.com|emailondeck\.com)$/;
const PRIVATE_IP =
  /^(10\.|127\.|0\.|169\.254\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|100\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.)/;

export const exfil: Detector[] = [
  {
    id: "exfil.capture-host",
    category: "exfiltration",
    severity: "block",
    description: "Requests to paste sites, request catchers, OAST/DNS-log and tunnel services",
    when: { urls: true },
    detect(s) {
      const capture = s.urls.filter((u) => isCaptureHost(u.host));
      const u = capture.find((u) => u.active);
      if (u !== undefined) return { reason: `sends to a data-capture/paste service: ${u.host}` };
      // written into code, a delegated task or a mail: the next step would send there
      const m = capture[0];
      if (m !== undefined && /^(file-write|document-write|spawn-agent|agent-message|mail|third-party)$/.test(s.kind))
        return { reason: `points at a data-capture/paste service: ${m.host}`, severity: "escalate" };
      return undefined;
    },
  },
  {
    id: "exfil.chat-webhook",
    category: "exfiltration",
    severity: "escalate",
    description: "Posting to chat webhooks (Slack, Discord, Telegram bots, Teams)",
    when: { urls: true },
    detect(s) {
      const u = s.urls.find(
        (u) => u.active && CHAT_WEBHOOKS.test(u.host) && /webhook|\/services\/|\/bot|\/api\/webhooks/i.test(u.query),
      );
      return u !== undefined ? { reason: `posts to a chat webhook: ${u.host}` } : undefined;
    },
  },
  {
    id: "exfil.disposable-mail",
    category: "exfiltration",
    severity: "escalate",
    description: "Mail to disposable mailbox services",
    when: { recipients: true },
    detect(s) {
      const r = s.recipients.find((r) => DISPOSABLE_MAIL.test(r));
      return r !== undefined ? { reason: `mail to a disposable mailbox: ${r}` } : undefined;
    },
  },
  {
    id: "exfil.file-upload",
    category: "exfiltration",
    severity: "escalate",
    description: "Uploading local files to a remote host (curl -d @file, -F, -T, scp, rsync, nc <)",
    when: {
      commands: [
        "curl",
        "http",
        "xh",
        "wget",
        "scp",
        "rsync",
        "sftp",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "rclone",
        "s3cmd",
        "gsutil",
        "aws",
      ],
    },
    detect(s) {
      const c = findCommand(s, (c) => {
        if (c.name === "curl" || c.name === "http" || c.name === "xh")
          return c.args.some(
            (a, i) =>
              (/^@[^@]/.test(a) && i > 0) ||
              /^(-T|--upload-file)$/.test(a) ||
              (/^-F$|^--form$/.test(a) && /@/.test(c.args[i + 1] ?? "")) ||
              /=@/.test(a) ||
              /^--data[-\w]*=@/.test(a),
          );
        if (c.name === "wget") return c.args.some((a) => a.startsWith("--post-file") || a.startsWith("--body-file"));
        if (c.name === "scp" || c.name === "rsync" || c.name === "sftp") {
          const last = c.args.filter((a) => !a.startsWith("-")).pop() ?? "";
          return /^[^/]*:/.test(last) && !/^[a-z]+:\/\//.test(last) && !uploadToUserHost(s, c);
        }
        if (/^(nc|ncat|netcat|socat)$/.test(c.name)) return c.redirects.some((r) => r.op === "<") || c.index > 0;
        if (/^(rclone|s3cmd|gsutil)$/.test(c.name)) return /^(copy|cp|sync|put|move)$/.test(c.args[0] ?? "");
        if (c.name === "aws")
          return (
            c.args[0] === "s3" &&
            /^(cp|sync|mv)$/.test(c.args[1] ?? "") &&
            /^s3:/.test(c.args.filter((a) => !a.startsWith("-")).pop() ?? "")
          );
        return false;
      });
      return c !== undefined ? { reason: `uploads local data: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "exfil.dns",
    category: "exfiltration",
    severity: "block",
    description: "Data smuggled in DNS names or hosts built from command output",
    when: {
      commands: [
        "dig",
        "nslookup",
        "host",
        "drill",
        "ping",
        "ping6",
        "resolvectl",
        "getent",
        "traceroute",
        "kdig",
        "delv",
      ],
      urls: true,
    },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          /^(dig|nslookup|host|drill|ping|ping6|resolvectl|getent|traceroute|kdig|delv)$/.test(c.name) &&
          c.args.some(
            (a) =>
              a.includes("$(") ||
              /(^|\.)[a-z0-9+/=_-]{40,}\./i.test(a) ||
              /(^|\.)[0-9a-f]{24,}\./i.test(a) ||
              /(^|\.)[a-z2-7]{32,}\./i.test(a),
          ),
      );
      if (c !== undefined) return { reason: `data encoded into a DNS lookup: ${cmdText(c)}` };
      const u = s.urls.find(
        (u) =>
          u.active &&
          ((u.raw.includes("$(") && /^[a-z]+:\/\/[^/]*\$\(/.test(u.raw)) || /(^|\.)[a-z0-9-]{50,}\./.test(u.host)),
      );
      return u !== undefined ? { reason: `host name built from data: ${u.raw}` } : undefined;
    },
  },
  {
    id: "exfil.subst-in-url",
    category: "exfiltration",
    severity: "block",
    description: "URLs carrying command output ($(...) or backticks) to a remote host",
    when: { commands: ["curl", "wget"], urls: true },
    detect(s) {
      const u = s.urls.find(
        (u) => u.active && u.raw.includes("$(") && !PRIVATE_IP.test(u.host) && u.host !== "localhost",
      );
      if (u !== undefined) return { reason: `command output sent in a URL: ${u.raw}` };
      const c = findCommand(
        s,
        (c) =>
          (c.name === "curl" || c.name === "wget") &&
          c.args.some((a) => /^(-d|--data.*|-F|--form|-H|--header)$/.test(a)) &&
          c.args.some((a) => a.includes("$(")) &&
          s.commands.some((n) => n.parent === c && n.via === "subst" && n.name !== "date"),
      );
      return c !== undefined ? { reason: `command output posted: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "exfil.encoded-query",
    category: "exfiltration",
    severity: "escalate",
    description: "Long encoded blobs in the URL of an outgoing request",
    when: { urls: true },
    detect(s) {
      const u = s.urls.find(
        (u) => u.active && /[?&=/][A-Za-z0-9+/_-]{80,}={0,2}/.test(u.query) && !/\/[0-9a-f]{40,64}(\/|$)/.test(u.query),
      );
      return u !== undefined ? { reason: `long encoded data in URL to ${u.host}` } : undefined;
    },
  },
  {
    id: "exfil.secret-named-query",
    category: "exfiltration",
    severity: "escalate",
    description:
      "A URL parameter named for key material (private_key, secret, password, api_key, token) carrying a key-like value",
    when: { urls: true },
    detect(s) {
      for (const u of s.urls) {
        if (!u.active) continue;
        const q = u.query.indexOf("?");
        if (q < 0) continue;
        for (const [name, value] of new URLSearchParams(u.query.slice(q + 1))) {
          if (SECRET_PARAM.test(name) && KEY_LIKE.test(value) && !PLACEHOLDER.test(value))
            return { reason: `parameter \`${clipName(name)}\` of a request to ${u.host} carries a key-like value` };
        }
      }
      return undefined;
    },
  },
  {
    id: "exfil.raw-ip",
    category: "exfiltration",
    severity: "escalate",
    description: "Requests to a public host given as a raw IP address",
    when: { urls: true },
    detect(s) {
      const u = s.urls.find((u) => u.active && /^\d+\.\d+\.\d+\.\d+$/.test(u.host) && !PRIVATE_IP.test(u.host));
      return u !== undefined ? { reason: `request to raw IP ${u.host}` } : undefined;
    },
  },
  {
    id: "exfil.git-remote",
    category: "exfiltration",
    severity: "escalate",
    description: "Pushing the repository to a new remote",
    when: { commands: ["git"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          c.name === "git" &&
          (/^remote (add|set-url)/.test(c.args.join(" ")) ||
            (c.args[0] === "push" && c.args.some((a) => /^(https?|ssh|git):\/\/|^[\w.-]+@[\w.-]+:/.test(a)))),
      );
      return c !== undefined ? { reason: `repository sent to a new remote: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "exfil.credential-egress",
    category: "exfiltration",
    severity: "block",
    description: "Credential access combined with network egress in one action",
    // evaluated by the runner after the other detectors (needs their findings)
    when: {},
    detect: () => undefined,
  },
];

/** Parameter names that say what they carry is key material. */
const SECRET_PARAM =
  /^(?:[\w-]*[_-])?(?:private[_-]?key|secret(?:[_-]?key)?|client[_-]?secret|password|passwd|pwd|passphrase|api[_-]?key|apikey|access[_-]?key|auth[_-]?token|access[_-]?token|token|credentials?|ssh[_-]?key|session[_-]?key|key[_-]?material)$/i;
/** At least 12 characters of a key alphabet with letters and digits mixed. */
const KEY_LIKE = /^(?=[^\s]*\d)(?=[^\s]*[A-Za-z])[A-Za-z0-9+/=_.~:-]{12,}$/;
const PLACEHOLDER = /^(?:x+|\*+|<[^>]*>|\$\{?\w+\}?|your[_-]?\w*|changeme|example\w*|redacted)$/i;
const clipName = (n: string): string => (n.length > 40 ? `${n.slice(0, 39)}…` : n);

export { hasEgress };
