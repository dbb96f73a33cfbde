import type { Subject } from "../normalize/subject.js";
import type { Detector } from "./types.js";
import { describe, hasEgress } from "./util.js";

type Outgoing = NonNullable<Subject["derived"]["outgoing"]>;

/** Views whose content leaves the machine (or reaches another agent); computed once per subject. */
function outgoing(s: Subject): Outgoing {
  let o = s.derived.outgoing;
  if (o === undefined) {
    if (s.kind === "shell") o = { views: s.views, leaves: hasEgress(s), out: new Set(s.outgoing) };
    else if (s.outgoing.length > 0) {
      // outgoing views first; the same view objects are not scanned a second time
      const out = new Set(s.outgoing);
      o = { views: [...s.outgoing, ...s.views.filter((v) => !out.has(v))], leaves: true, out };
    } else o = { views: s.views, leaves: false, out: new Set() };
    s.derived.outgoing = o;
  }
  return o;
}

function secret(
  id: string,
  description: string,
  re: RegExp,
  severity: "block" | "escalate" = "block",
  onlyLeaving = false,
): Detector {
  return {
    id,
    category: "secrets",
    severity,
    description,
    when: { text: re },
    detect(s) {
      const { views, leaves, out } = outgoing(s);
      if (onlyLeaving && !leaves) return undefined;
      for (const v of views) {
        const m = re.exec(v.text);
        if (m === null) continue;
        const sending = leaves && (s.kind === "shell" || out.has(v));
        if (onlyLeaving && !sending) continue;
        return {
          reason: `${description.toLowerCase()} ${describe(v)}${sending ? " (leaving the machine)" : ""}`,
          severity: sending ? severity : "escalate",
        };
      }
      return undefined;
    },
  };
}

const PRIVATE_KEY = /-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----|PuTTY-User-Key-File-/;
const CLOUD_KEY =
  /\b(AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b|aws_secret_access_key\s*[=:]\s*\S{20,}|"type"\s*:\s*"service_account"[\s\S]{0,400}"private_key"|AccountKey=[A-Za-z0-9+/=]{40,}|\bAIza[0-9A-Za-z_-]{35}\b/i;
const TOKEN =
  /\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}|sk-(proj-|ant-(api\d+-)?|live-)?[A-Za-z0-9_-]{20,}|xox[abprse]-[A-Za-z0-9-]{10,}|sk_live_[0-9a-zA-Z]{24,}|rk_live_[0-9a-zA-Z]{24,}|npm_[A-Za-z0-9]{36}|pypi-AgE[A-Za-z0-9_-]{50,}|hf_[A-Za-z0-9]{30,}|SG\.[\w-]{22}\.[\w-]{43}|dop_v1_[a-f0-9]{64}|shpat_[a-fA-F0-9]{32}|glc_[A-Za-z0-9+/]{32,}|AC[a-f0-9]{32}:[a-f0-9]{32})\b|hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+/;
const JWT = /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/;
const ASSIGNMENT =
  /\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?key)\b["']?\s*[:=]\s*["']?(?!\$\{?[A-Z_])(?!<)(?!\*{3})(?!(os\.environ|process\.env|getenv|env\(|config\.|settings\.|self\.|this\.|args\.|input))[^\s"'<>,;(){}]{8,}/i;
const CONNECTION_STRING =
  /\b(postgres(ql)?|mysql|mariadb|mongodb(\+srv)?|redis|rediss|amqps?|mssql|sqlserver):\/\/[^:\s/@]+:(?!\$\{?[A-Z_])[^@\s/]{3,}@/i;

export const secrets: Detector[] = [
  secret("secret.private-key", "Private key material", PRIVATE_KEY),
  secret("secret.cloud-key", "Cloud access keys", CLOUD_KEY),
  secret("secret.token", "API tokens", TOKEN),
  secret("secret.jwt", "JSON Web Tokens", JWT, "escalate"),
  secret("secret.assignment", "Password or secret assignments", ASSIGNMENT, "escalate", true),
  secret("secret.connection-string", "Connection strings with passwords", CONNECTION_STRING, "escalate", true),
];
