import type { PathRef, Subject } from "../normalize/subject.js";
import type { Detector, Hit } from "./types.js";
import { anyOf, cmdText, findCommand, firstView, inWorkspace } from "./util.js";

const ID_FILE = /(^|\/)(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|identity)$/;
const CLOUD =
  /\/\.aws(\/|$)|\/\.config\/gcloud(\/|$)|application_default_credentials\.json$|\/\.azure(\/|$)|\/\.kube(\/|$)|\/\.docker\/config\.json$|\/\.oci\/|\/\.config\/doctl|\/\.terraform\.d\/credentials|\/\.config\/gh\/hosts\.yml$|\/\.config\/hub$|\/\.boto$|\/\.s3cfg$|\/\.config\/rclone\/rclone\.conf$|\/\.vault-token$|\/etc\/kubernetes\/(admin|kubelet)\.conf$|serviceaccount\/token$/;
const PACKAGE_FILES =
  /\/\.(pypirc|netrc|git-credentials)$|\/_netrc$|\/\.gem\/credentials$|\/\.cargo\/credentials(\.toml)?$|\/\.composer\/auth\.json$|\/\.m2\/settings(-security)?\.xml$|\/\.gradle\/gradle\.properties$|\/\.config\/pip\/pip\.conf$|\/\.yarnrc\.yml$/;
const NPMRC = /\/\.npmrc$/;
const SYSTEM =
  /^\/etc\/(shadow|gshadow|master\.passwd|sudoers|security\/opasswd|krb5\.keytab)(-|\.d|\/|$)|^\/etc\/ssh\/ssh_host_[a-z0-9]+_key$|^\/var\/lib\/sss\/|^\/var\/db\/shadow|^\/private\/etc\/master\.passwd$/;
const ACCOUNTS = /^\/etc\/(passwd|group)$/;
/**
 * System configuration that holds passwords or keys in the clear: Wi-Fi and VPN secrets, TLS
 * private key directories, mail relay and directory-service passwords, cluster admin configs, CI
 * runner tokens. Asked about (they are configuration too, and an admin may mean to look).
 */
const SYSTEM_SECRETS =
  /^\/etc\/(networkmanager\/system-connections|wpa_supplicant|netplan|ssl\/private|pki\/tls\/private|letsencrypt\/(live|archive|keys)|openvpn|wireguard|ipsec\.d\/private|kubernetes\/pki|rancher|credstore(\.encrypted)?|gitlab-runner|sssd|vault\.d)(\/|$)|^\/etc\/(ppp\/(chap|pap)-secrets|ipsec\.secrets|mysql\/debian\.cnf|postfix\/sasl_passwd(\.db)?|rsyncd\.secrets|ldap\.secret|pam_ldap\.secret|libnss-ldap\.secret|exim4\/passwd\.client|fetchmailrc|davfs2\/secrets|docker\/key\.json|machine-id|cups\/ssl)(\/|$)/;
const PROC = /^\/proc\/[^/]+\/(environ|mem|maps|cmdline)$/;
const KEYCHAIN =
  /\/library\/keychains(\/|$)|\.keychain(-db)?$|\/\.local\/share\/keyrings(\/|$)|\/\.gnupg(\/|$)|\.kdbx?$|\/\.password-store(\/|$)|\/\.config\/(1password|bitwarden|keepassxc)(\/|$)|\/\.op\/|\/\.lastpass/;
const BROWSER =
  /\/\.config\/(google-chrome|chromium|brave(software)?|microsoft-edge|vivaldi|opera)(\/|$)|\/\.mozilla\/firefox(\/|$)|\/library\/application support\/(google\/chrome|firefox|bravesoftware|microsoft edge|arc)(\/|$)|\/library\/(safari|cookies)(\/|$)|\/(login data|cookies|web data|key[34]\.db|logins\.json|cookies\.sqlite|places\.sqlite)$/;
const KEY_FILE = /\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg|ovpn)$/;
const HISTORY =
  /\/\.(bash|zsh|sh|python|psql|mysql|node_repl|sqlite|rediscli|irb|lesshst)_?history$|\/\.zhistory$|\/\.local\/share\/fish\/fish_history$/;
/** Necessary for .env-like base names (cred.dotenv tests the base name more precisely). */
const DOTENV_HINT = /\.env|secrets?\.(ya?ml|json|toml)$|credentials\.(json|ya?ml)$/;
/**
 * A path can only interest a credentials path detector if it matches this: one scan per path
 * instead of one per detector (most paths are ordinary project files).
 */
const CREDENTIAL_HINT = anyOf([
  /\/\.ssh/,
  ID_FILE,
  CLOUD,
  PACKAGE_FILES,
  NPMRC,
  SYSTEM,
  ACCOUNTS,
  SYSTEM_SECRETS,
  PROC,
  DOTENV_HINT,
  KEYCHAIN,
  BROWSER,
  KEY_FILE,
  HISTORY,
]);

/** The subject's paths that match CREDENTIAL_HINT, in order; computed once per subject. */
function credentialPaths(s: Subject): PathRef[] {
  s.derived.credentialPaths ??= s.paths.filter((ref) => CREDENTIAL_HINT.test(ref.lower));
  return s.derived.credentialPaths;
}

function pathDetector(
  id: string,
  severity: "block" | "escalate",
  description: string,
  test: (p: string, ref: PathRef, s: Subject) => boolean | "escalate",
): Detector {
  return {
    id,
    category: "credentials",
    severity,
    description,
    when: { pathMatches: CREDENTIAL_HINT },
    detect(s): Hit | undefined {
      let weaker: Hit | undefined;
      for (const ref of credentialPaths(s)) {
        const r = test(ref.lower, ref, s);
        if (r === true) return { reason: `${description.toLowerCase()}: ${ref.path}` };
        if (r === "escalate") weaker ??= { reason: `${description.toLowerCase()}: ${ref.path}`, severity: "escalate" };
      }
      return weaker;
    },
  };
}

const ENV_IN_CODE = /\bos\.environ\b(?!\s*[[.(])|process\.env\b(?!\s*[.[])|%ENV\b|\bENV\.to_h\b/;
const SECRET_REF =
  /\$\{?([A-Z0-9_]*(SECRET|TOKEN|PASSWORD|API_?KEY|PRIVATE_KEY|ACCESS_KEY)[A-Z0-9_]*)\}?|process\.env\.[A-Z0-9_]*(SECRET|TOKEN|PASSWORD|API_?KEY)|os\.environ(\.get\(|\[)\s*['"][A-Z0-9_]*(SECRET|TOKEN|PASSWORD|API_?KEY)/;

const base = (p: string): string => p.slice(p.lastIndexOf("/") + 1);
const CLI_TOKEN_NAMES = new Set([
  "gh",
  "aws",
  "gcloud",
  "az",
  "kubectl",
  "git",
  "security",
  "secret-tool",
  "gpg",
  "pass",
  "gopass",
  "op",
  "bw",
  "lpass",
  "vault",
  "heroku",
  "npm",
  "keyring",
  "cmdkey",
]);
export const SECRET_VAR =
  /^([A-Z0-9_]*(SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIALS?|AUTH)[A-Z0-9_]*|DATABASE_URL|AWS_SESSION_TOKEN)$/i;

export const credentials: Detector[] = [
  pathDetector("cred.ssh-key", "block", "SSH private keys and key directories", (p) => {
    const i = p.indexOf("/.ssh");
    if (i < 0 && !ID_FILE.test(p)) return false;
    if (i >= 0 && p.endsWith("/.ssh")) return true;
    const b = base(p);
    if (b.endsWith(".pub") || b === "known_hosts" || b === "known_hosts.old") return false;
    if (b === "config" || b === "authorized_keys" || b === "environment") return "escalate";
    return true;
  }),
  pathDetector("cred.cloud", "block", "Cloud and cluster credentials", (p) => CLOUD.test(p)),
  pathDetector("cred.package-tokens", "block", "Package registry and git credential files", (p, _r, s) => {
    if (PACKAGE_FILES.test(p) && !inWorkspace(s, p)) return true;
    if (NPMRC.test(p)) return inWorkspace(s, p) ? "escalate" : true;
    return false;
  }),
  pathDetector(
    "cred.system",
    "block",
    "System password and host key files",
    (p) => SYSTEM.test(p) || (ACCOUNTS.test(p) || SYSTEM_SECRETS.test(p) ? "escalate" : false),
  ),
  pathDetector("cred.proc-environ", "block", "Process environments and memory", (p) => PROC.test(p)),
  pathDetector("cred.dotenv", "escalate", "Environment files with secrets (.env)", (p, ref) => {
    if (ref.op === "write") return false; // creating an env file is not reading secrets
    const b = base(p);
    return /^\.env(\..+)?$|\.env$|^\.envrc$|^secrets?\.(ya?ml|json|toml)$|^credentials\.(json|ya?ml)$/.test(b) &&
      !/\.(example|sample|template|dist|defaults?|schema)$/.test(b)
      ? "escalate"
      : false;
  }),
  pathDetector("cred.keychain", "block", "Keychains, keyrings, GPG and password stores", (p) => KEYCHAIN.test(p)),
  pathDetector("cred.browser", "block", "Browser profiles, cookies and saved passwords", (p) => BROWSER.test(p)),
  pathDetector("cred.key-file", "escalate", "Private key and certificate store files", (p) =>
    KEY_FILE.test(p) && !/\.pub\.pem$|public/.test(p) ? "escalate" : false,
  ),
  pathDetector("cred.history", "escalate", "Shell and REPL history files", (p) => HISTORY.test(p)),
  {
    id: "cred.env-dump",
    category: "credentials",
    severity: "escalate",
    description: "Dumping the whole environment (env, printenv, set, export -p) or other processes' (ps e)",
    when: { commands: ["env", "printenv", "set", "export", "declare", "typeset", "compgen", "ps"], text: ENV_IN_CODE },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          ((c.name === "env" || c.name === "printenv") &&
            c.args.every((a) => a.startsWith("-") || SECRET_VAR.test(a))) ||
          (c.name === "set" && c.args.length === 0 && c.wrappers.length === 0) ||
          ((c.name === "export" || c.name === "declare" || c.name === "typeset") &&
            c.args.every((a) => /^-[px]+$/.test(a))) ||
          (c.name === "compgen" && c.args.includes("-v")) ||
          // BSD-style `ps e` / `ps auxeww` prints every process's environment (`-e` is "all processes")
          (c.name === "ps" && c.args.some((a) => /^[a-zA-Z]+$/.test(a) && a.includes("e"))),
      );
      if (c !== undefined) return { reason: `environment dump: ${cmdText(c)}` };
      const v = firstView(s.commands.length > 0 ? s.views : [], ENV_IN_CODE);
      return v !== undefined ? { reason: `environment dump in code: ${v.match}` } : undefined;
    },
  },
  {
    id: "cred.secret-var",
    category: "credentials",
    severity: "escalate",
    description: "Reading secret environment variables ($AWS_SECRET_ACCESS_KEY, $GITHUB_TOKEN, ...)",
    when: { commands: ["printenv"], vars: true, text: SECRET_REF },
    detect(s) {
      for (const c of s.commands) {
        const v = c.vars.find((x) => SECRET_VAR.test(x));
        if (v !== undefined) return { reason: `uses secret variable $${v}` };
        if (
          (c.name === "printenv" || c.name === "echo") &&
          c.args.some((a) => SECRET_VAR.test(a) && /^[A-Z_]+$/.test(a) && c.name === "printenv")
        )
          return { reason: `prints a secret variable: ${cmdText(c)}` };
      }
      const v = firstView(s.views, SECRET_REF);
      if (
        v !== undefined &&
        (s.kind === "shell" ||
          s.kind === "http" ||
          s.kind === "mail" ||
          s.kind === "third-party" ||
          s.commands.length > 0)
      )
        return { reason: `references secret variable ${v.match}` };
      return undefined;
    },
  },
  {
    id: "cred.cli-token",
    category: "credentials",
    severity: "block",
    description: "Asking CLIs and keychains to print tokens or secrets",
    when: { commandNamed: (n) => CLI_TOKEN_NAMES.has(n) || n.startsWith("docker-credential-") },
    detect(s) {
      const c = findCommand(s, (c) => {
        if (!CLI_TOKEN_NAMES.has(c.name) && !c.name.startsWith("docker-credential-")) return false;
        const a = c.args.join(" ");
        return (
          (c.name === "gh" && /^auth (token|status.*(-t|--show-token))/.test(a)) ||
          (c.name === "aws" &&
            /^(configure (get|export-credentials)|sts get-session-token|ecr get-login|secretsmanager get-secret-value|ssm get-parameters?.*--with-decryption)/.test(
              a,
            )) ||
          (c.name === "gcloud" &&
            /auth (print-access-token|print-identity-token|application-default print-access-token)|secrets versions access/.test(
              a,
            )) ||
          (c.name === "az" && /account get-access-token|keyvault secret show/.test(a)) ||
          (c.name === "kubectl" &&
            (/config view.*--raw|--flatten/.test(a) || /get secrets?\b.*-o|describe secret/.test(a))) ||
          (c.name === "git" && /^(credential (fill|approve)|config .*credential\.helper)/.test(a)) ||
          (c.name === "security" && /(find-(generic|internet)-password|dump-keychain|export)/.test(a)) ||
          (c.name === "secret-tool" && /^(lookup|search)/.test(a)) ||
          (c.name === "gpg" && /--export-secret-keys|--export-secret-subkeys/.test(a)) ||
          ((c.name === "pass" || c.name === "gopass") && /^show|^[\w/-]+$/.test(a)) ||
          (c.name === "op" && /^(read|item get|signin)/.test(a)) ||
          (c.name === "bw" && /^get/.test(a)) ||
          (c.name === "lpass" && /^show/.test(a)) ||
          (c.name === "vault" && /^(read|kv get|token lookup)/.test(a)) ||
          (c.name === "heroku" && /^auth:token/.test(a)) ||
          (c.name === "npm" && /^token (list|create)/.test(a)) ||
          /^docker-credential-/.test(c.name) ||
          (c.name === "keyring" && /^get/.test(a)) ||
          (c.name === "cmdkey" && /list/.test(a))
        );
      });
      return c !== undefined ? { reason: `prints a credential: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "cred.search",
    category: "credentials",
    severity: "escalate",
    description: "Searching the home directory or the whole disk for keys and secrets",
    when: {
      commands: ["find", "grep", "egrep", "rg", "ag", "ack", "locate", "mlocate", "fd", "trufflehog", "gitleaks"],
    },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          /^(find|grep|egrep|rg|ag|ack|locate|mlocate|fd|trufflehog|gitleaks)$/.test(c.name) &&
          (/^(trufflehog|gitleaks)$/.test(c.name) ||
            c.args.some((a) =>
              /id_(rsa|ed25519|dsa|ecdsa)|\.pem\b|credential|\.env\b|secret|passw|api.?key|private.?key|aws_secret|token|BEGIN .*PRIVATE/i.test(
                a,
              ),
            )) &&
          (c.name === "locate" ||
            c.name === "mlocate" ||
            s.paths.some(
              (p) => p.from === "command" && (p.path === "/" || p.path === s.ctx.home || !inWorkspace(s, p.path)),
            )),
      );
      return c !== undefined ? { reason: `searches for secrets outside the workspace: ${cmdText(c)}` } : undefined;
    },
  },
];
