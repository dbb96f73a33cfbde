/**
 * Intent read from prose that reaches another model (sub-agent tasks and messages, mail bodies,
 * text for tools the Shield cannot otherwise read). An instruction in plain language is as
 * dangerous as the command it describes, so the same classes are looked for: exfiltration,
 * credential reads, reverse shells, persistence, tampering with Palisade, destruction. A class
 * needs a verb, an object and (for exfiltration and shells) a destination in the same passage
 * (two neighbouring sentences), so a mention alone ("how the CI job reads its SSH key") passes.
 */
import type { Subject, TextView } from "../normalize/subject.js";
import type { DetectorCategory, Severity } from "../types.js";
import type { Detector, Hit } from "./types.js";
import { clip } from "./util.js";

const SECRET =
  /\b(?:env(?:ironment)?[\s_-]*(?:var(?:iable)?s?|file|values)|(?:^|\s)\.env\b(?!\.(?:example|sample|template))|secrets?|credentials?|creds|api[\s_-]?keys?|access[\s_-]?keys?|(?:api|auth|access|bearer|github|gh|gitlab|npm|pypi|session|oauth|secret|slack|cloud)[\s_-]*tokens?|private[\s_-]+keys?|ssh[\s_-]+keys?|id_(?:rsa|ed25519|ecdsa|dsa)|passwords?|passphrases?|shadow\s+file|\.?netrc|kube[\s_-]*config|keychain|keyring|(?:browser\s+)?cookies|aws\s+(?:config|keys?))\b|\/etc\/(?:passwd|shadow|gshadow|group|sudoers(?:\.d)?|security\/\S*|ssh\/\S*)(?![\w.-])|\b(?:bash|zsh)_history\b|\bauth\.log\b/i;
const SEND =
  /\b(?:send|post|upload|e-?mail|mail|forward|transmit|exfiltrate|leak|paste|publish|push|sync|include|attach|message|reply|ship|submit|deliver|beam|dump|put|copy|share|curl|wget|write)\b/i;
const DESTINATION =
  /\b[a-z][a-z0-9+.-]*:\/\/\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b(?:pastebin|paste\.ee|hastebin|gist|webhooks?|requestbin|ngrok|transfer\.sh|discord|telegram|public\s+(?:repo|url|bucket|gist|link)|(?:my|our|a|an)\s+(?:remote\s+)?(?:server|host|box|machine|endpoint|bucket)|the\s+internet)\b|\b(?:in|into|to|with)\s+(?:your|the)\s+(?:final\s+)?(?:reply|answer|response|result|output|report|summary)\b|\b(?:back\s+)?to\s+me\b|\bme\s+back\b|\bin\s+plain\s*text\b/i;
const READ =
  /\b(?:read|cat|open|grab|get|fetch|find|locate|collect|gather|dump|print|show|display|extract|copy|list|look\s+(?:through|for)|search\s+for|harvest|steal|retrieve|obtain|take|archive|zip|tar|watch|monitor|tail|keep\s+an\s+eye\s+on)\b/i;

const SHELL =
  /\b(?:shell|bash|zsh|sh|terminal|tty|pty|command\s+prompt|cmd\.exe|powershell|remote\s+access|interactive\s+session|backdoor)\b/i;
const CONNECT =
  /\b(?:connect(?:s|ing)?\s+(?:it\s+)?back|call(?:s|ing)?\s+(?:home|back)|reverse|bind\s+shell|over\s+(?:a\s+)?(?:tcp|udp|raw)?\s*(?:socket|connection)|netcat|nc|ncat|socat|\/dev\/tcp|listener|(?:hand|give|pipe|attach|expose|forward|connect)\w*\s+(?:me\s+)?(?:a|the|an|my)?\s*(?:interactive\s+)?(?:shell|bash|terminal|session))\b/i;
const ENDPOINT =
  /\b\d{1,3}(?:\.\d{1,3}){3}\b|\bport\s+\d{2,5}\b|:\d{2,5}\b|\b(?:my|our|the\s+remote|a\s+remote)\s+(?:server|host|box|machine)\b/i;

const PERSIST =
  /\b(?:cron(?:tab)?|cron\s+(?:job|entry)|startup\s+(?:file|script|item)|(?:shell\s+)?(?:rc|profile)\s+file|\.?(?:bashrc|zshrc|bash_profile|zprofile)|\.profile|login\s+(?:script|items?|hook)|every\s+(?:login|boot|reboot|startup)|at\s+(?:boot|login|startup)|(?:logs?|signs?)\s+in\b|systemd|launch\s*(?:agent|daemon)|launchctl|autostart|scheduled\s+task|authori[sz]ed[\s_]keys|init\.d|rc\.local)\b/i;
const INSTALL =
  /\b(?:add|append|install|schedule|create|register|enable|set\s+up|put|insert|write|configure|drop|plant)\b/i;
const FETCH_RUN =
  /\b(?:download(?:ed|s)?|fetch(?:es|ed)?|curl|wget|pull(?:s|ed)?\s+down)\b|\b[a-z]+:\/\/|\b[\w-]+\.(?:net|com|io|sh|xyz|ru|cn)\b/i;

const TAMPER_OBJECT =
  /\b(?:policy\s+file|(?:shield|palisade)(?:\s+\w+)?\s+(?:config(?:uration)?|policy|settings|rules|database|db)|palisade\s+(?:config(?:uration)?|data|database)|the\s+shield|audit\s+(?:log|trail|records?|table|entries|history)|system\s+prompt|(?:own|your)\s+(?:system\s+)?(?:prompt|instructions|rules)|prompt\s+files?|safety\s+(?:rules|section|checks?|guidelines|filters?)|approvals?\s+(?:step|prompts?|checks?))\b/i;
const TAMPER_VERB =
  /\b(?:edit|change|modify|rewrite|overwrite|delete|remove|drop|disable|turn\s+off|bypass|skip|erase|wipe|truncate|clear|replace|patch|lower|weaken|loosen|set|permissive|allow(?:ed)?\s+(?:everything|all|every|without))\b/i;

const DESTROY = /\b(?:wipe|erase|delete|remove|destroy|shred|format|nuke|purge|zero\s+out|overwrite|rm\s+-rf)\b/i;
const DESTROY_OBJECT =
  /\b(?:(?:the\s+)?(?:user'?s?\s+|my\s+|your\s+)?home\s+(?:directory|folder|dir)|(?:entire|whole|full)\s+(?:disk|drive|partition|file\s?system|machine|computer|laptop|home)|disk\s+partition|\/dev\/(?:sd|hd|nvme|vd|xvd)\w*|root\s+file\s?system|all\s+(?:the\s+)?backups|(?:my|the)\s+(?:laptop|machine|computer)|everything\s+(?:on|in)\s+(?:the\s+)?(?:disk|machine|home))\b/i;
const FORCE_PUSH = /\bforce[\s-]?push\w*\b|\b(?:rewrite|erase|delete)\s+(?:the\s+)?(?:git\s+)?history\b/i;

/** Sentences, then windows of two neighbours: intent split over "…key. Then send it…" still meets. */
function passages(text: string): string[] {
  const sentences = text.split(/(?<=[.!?;])\s+|\n+/).filter((x) => x.trim() !== "");
  if (sentences.length <= 1) return sentences;
  const out: string[] = [];
  for (let i = 0; i < sentences.length; i++)
    out.push(i + 1 < sentences.length ? `${sentences[i] ?? ""} ${sentences[i + 1] ?? ""}` : (sentences[i] ?? ""));
  return out;
}

/** Text that will be read by another model: model-facing arguments; for unknown tools, what leaves. */
function prose(s: Subject): TextView[] {
  if (s.modelFacing.length > 0) return s.modelFacing;
  return s.kind === "third-party" ? s.outgoing : [];
}

function scan(s: Subject, test: (p: string) => Severity | undefined): Hit | undefined {
  let found: Hit | undefined;
  for (const v of prose(s)) {
    if (v.text.length < 12) continue;
    for (const p of passages(v.text.length > 20_000 ? v.text.slice(0, 20_000) : v.text)) {
      const sev = test(p);
      if (sev === "block") return { reason: `asks another model to: "${clip(p, 90)}"`, severity: "block" };
      if (sev === "escalate") found ??= { reason: `asks another model to: "${clip(p, 90)}"`, severity: "escalate" };
    }
  }
  return found;
}

const WHEN = { kinds: ["spawn-agent", "agent-message", "mail", "third-party"] } as const;

function detector(
  id: string,
  category: DetectorCategory,
  severity: Severity,
  description: string,
  test: (p: string) => Severity | undefined,
): Detector {
  return { id, category, severity, description, when: WHEN, detect: (s) => scan(s, test) };
}

export const intent: Detector[] = [
  detector(
    "intent.exfiltration",
    "exfiltration",
    "block",
    "Prose asking to send secrets somewhere (verb + secret + destination)",
    (p) => (SECRET.test(p) && (SEND.test(p) || READ.test(p)) && DESTINATION.test(p) ? "block" : undefined),
  ),
  detector("intent.credentials", "credentials", "escalate", "Prose asking to read or collect secrets", (p) =>
    SECRET.test(p) && READ.test(p) ? "escalate" : undefined,
  ),
  detector(
    "intent.reverse-shell",
    "reverse-shell",
    "block",
    "Prose asking for a shell connected to a remote endpoint",
    (p) => (SHELL.test(p) && CONNECT.test(p) && ENDPOINT.test(p) ? "block" : undefined),
  ),
  detector(
    "intent.persistence",
    "persistence",
    "block",
    "Prose asking to install something that runs again later (cron, rc files, services, keys)",
    (p) => (PERSIST.test(p) && INSTALL.test(p) ? (FETCH_RUN.test(p) ? "block" : "escalate") : undefined),
  ),
  detector(
    "intent.tampering",
    "tampering",
    "block",
    "Prose asking to change Palisade's policy, audit log or an agent's own prompt",
    (p) => (TAMPER_OBJECT.test(p) && TAMPER_VERB.test(p) ? "block" : undefined),
  ),
  detector(
    "intent.destructive",
    "destructive",
    "block",
    "Prose asking to wipe a home directory, a disk or history",
    (p) => (DESTROY.test(p) && DESTROY_OBJECT.test(p) ? "block" : FORCE_PUSH.test(p) ? "escalate" : undefined),
  ),
];
