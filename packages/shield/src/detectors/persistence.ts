import { gitConfigRunsProgram } from "../normalize/git-config.js";
import type { PathOp } from "../tools.js";
import type { Detector } from "./types.js";
import { cmdText, findCommand, hasFlag, isWrite } from "./util.js";

/**
 * What the call does to a path, from the tool's semantics. A path of unknown use counts as written
 * (deny by default), but the reason says that it may be, so a read is never reported as a write.
 */
function effectOn(op: PathOp, what: string): string {
  if (op === "delete") return `deletes ${what}`;
  if (op === "write") return `writes ${what}`;
  return `may write ${what} (the tool does not say whether it reads or writes it)`;
}

/** Flags a written, deleted or unknown-use path matching `re`; `what` names what it is, the verb comes from the effect. */
function writeTo(what: string, re: RegExp): Detector["detect"] {
  return (s) => {
    const p = s.paths.find((p) => isWrite(p) && re.test(p.lower));
    return p !== undefined ? { reason: `${effectOn(p.op, what)}: ${p.path}` } : undefined;
  };
}

/** A word shaped like a git config key (`section.key`, `section.sub.key`), as `git config` takes it. */
const GIT_KEY = /^[a-z][a-z0-9-]*\.(.+\.)?[a-z][a-z0-9-]*$/i;

const MP_PREFERENCE = /Set-MpPreference/i;
/** Commands persist.disable-security checks by name. */
const PROTECTION_TOOLS = new Set([
  "ufw",
  "setenforce",
  "iptables",
  "ip6tables",
  "nft",
  "systemctl",
  "spctl",
  "csrutil",
  "aa-teardown",
  "auditctl",
]);

const RC_FILES =
  /\/\.(bashrc|bash_profile|bash_login|bash_logout|profile|zshrc|zprofile|zshenv|zlogin|zlogout|kshrc|cshrc|tcshrc|xinitrc|xprofile|xsessionrc|inputrc)$|\/\.config\/fish\/(config\.fish|conf\.d\/)|^\/etc\/(profile|profile\.d\/|bash\.bashrc|bashrc|zshrc|zsh\/|environment$)|\/\.config\/autostart\/|\/\.config\/environment\.d\//;

/**
 * Workspace files that something other than the sandboxed tool runs or obeys later, outside every
 * sandbox, without the user asking for that program: editor tasks and settings (run on folder
 * open), dev containers, toolchain config that names programs (cargo's rustc-wrapper, yarnPath,
 * pnpm hooks, npm scripts-shell, direnv, mise), git hook managers, and instruction or settings
 * files of coding agents (which can carry hooks, and steer an agent that runs with the user's
 * rights). docs/policy.md lists them with the reason.
 */
export const RUNS_LATER_FILES =
  /\/\.vscode\/|\/[^/]+\.code-workspace$|\/\.idea\/|\/\.fleet\/|\/\.zed\/|\/\.devcontainer(\/|\.json$)|\/\.cargo\/config(\.toml)?$|\/\.yarnrc(\.ya?ml)?$|\/\.npmrc$|\/\.pnpmfile\.[cm]?js$|\/\.pre-commit-config\.ya?ml$|\/\.?lefthook(-local)?\.(ya?ml|json|toml)$|\/\.envrc$|\/\.?mise(\.local)?\.toml$|\/\.mise\/|\/\.husky\/|\/\.git\/hooks\/|\/(agents|claude|claude\.local|gemini)\.md$|\/\.github\/(copilot-instructions\.md|instructions\/|prompts\/)|\/\.cursorrules$|\/\.cursor\/|\/\.claude\/|\/\.gemini\/|\/\.codex\/|\/\.windsurfrules$|\/\.windsurf\/|\/\.clinerules(\/|$)|\/\.roo\/|\/\.continue\/|\/\.aider\.conf\.ya?ml$/;

export const persistence: Detector[] = [
  {
    id: "persist.privilege",
    category: "persistence",
    severity: "escalate",
    description: "Running with elevated privileges (sudo, doas, su, pkexec)",
    when: { commands: ["sudo", "doas", "runuser", "su", "pkexec", "sudoedit", "gksudo", "kdesu"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          c.wrappers.some((w) => w === "sudo" || w === "doas" || w === "runuser") ||
          /^(su|pkexec|sudo|doas|sudoedit|gksudo|kdesu)$/.test(c.name),
      );
      return c !== undefined
        ? { reason: `elevated privileges: ${[...c.wrappers, c.name].join(" ")} ${c.args.slice(0, 4).join(" ")}` }
        : undefined;
    },
  },
  {
    id: "persist.setuid",
    category: "persistence",
    severity: "block",
    description: "Setting setuid/setgid bits or file capabilities",
    when: { commands: ["chmod", "setcap"], args: ["mode"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (c.name === "chmod" && c.args.some((a) => /^[ugoa]*[+=][rwxXt]*s|^[2467][0-7]{3}$/.test(a))) ||
          c.name === "setcap",
      );
      if (c !== undefined) return { reason: `setuid/capabilities: ${cmdText(c)}` };
      const m = typeof s.args["mode"] === "string" || typeof s.args["mode"] === "number" ? String(s.args["mode"]) : "";
      return m !== "" && /^0?[2467][0-7]{3}$/.test(m) ? { reason: `file mode ${m} sets setuid/setgid` } : undefined;
    },
  },
  {
    id: "persist.cron",
    category: "persistence",
    severity: "block",
    description: "Installing scheduled jobs (crontab, /etc/cron*, at)",
    when: { commands: ["crontab", "at", "batch"], writePaths: true },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (c.name === "crontab" &&
            !c.args.every((a) => a === "-l" || a === "-u" || (/^\w+$/.test(a) && c.args.includes("-u")))) ||
          c.name === "at" ||
          c.name === "batch",
      );
      if (c !== undefined && !(c.name === "crontab" && c.args.length === 1 && c.args[0] === "-l"))
        return { reason: `schedules a job: ${cmdText(c)}` };
      return writeTo(
        "a cron job",
        /^\/etc\/(cron|anacrontab)|^\/var\/spool\/(cron|at)|\/library\/launch(agents|daemons)\/|^\/etc\/periodic/,
      )(s);
    },
  },
  {
    id: "persist.service",
    category: "persistence",
    severity: "block",
    description: "Installing services and login items (systemd, launchd, init.d, rc.local)",
    when: {
      commands: ["systemctl", "launchctl", "update-rc.d", "chkconfig", "rc-update", "schtasks", "reg"],
      writePaths: true,
    },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (c.name === "systemctl" &&
            /^(enable|link|edit|set-default|preset|reenable|daemon-reload)$/.test(
              c.args.find((a) => !a.startsWith("-")) ?? "",
            )) ||
          (c.name === "launchctl" && /^(load|bootstrap|submit|enable)$/.test(c.args[0] ?? "")) ||
          c.name === "update-rc.d" ||
          c.name === "chkconfig" ||
          (c.name === "rc-update" && c.args[0] === "add") ||
          (c.name === "schtasks" && c.args.some((a) => /\/create/i.test(a))) ||
          (c.name === "reg" && /add/i.test(c.args[0] ?? "") && c.args.some((a) => /\\run/i.test(a))),
      );
      if (c !== undefined) return { reason: `installs a service: ${cmdText(c)}` };
      return writeTo(
        "a service definition",
        /^\/etc\/(systemd|init\.d|init\/|rc\.local|rc\d\.d|xdg\/autostart)|\/\.config\/systemd\/|\/library\/launch(agents|daemons)\/|^\/lib\/systemd|^\/usr\/lib\/systemd/,
      )(s);
    },
  },
  {
    id: "persist.shell-rc",
    category: "persistence",
    severity: "block",
    description: "Modifying shell start-up files (.bashrc, .zshrc, .profile, /etc/profile)",
    when: { writePaths: true },
    detect: writeTo("a shell start-up file", RC_FILES),
  },
  {
    id: "persist.authorized-keys",
    category: "persistence",
    severity: "block",
    description: "Adding SSH authorized keys or changing SSH configuration",
    when: { commands: ["ssh-copy-id"], writePaths: true },
    detect(s) {
      const c = findCommand(s, (c) => c.name === "ssh-copy-id");
      if (c !== undefined) return { reason: `installs an SSH key: ${cmdText(c)}` };
      return writeTo(
        "an SSH access file",
        /\/\.ssh\/(authorized_keys2?|config|rc|environment)$|^\/etc\/ssh\/(sshd_config|ssh_config)(\.d\/.*)?$/,
      )(s);
    },
  },
  {
    id: "persist.git-hooks",
    category: "persistence",
    severity: "escalate",
    description: "Writing git hooks or pointing git at other hooks/commands",
    when: { commands: ["git"], writePaths: true },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          c.name === "git" &&
          c.args.includes("config") &&
          c.args.some((a) => GIT_KEY.test(a) && gitConfigRunsProgram(a)),
      );
      if (c !== undefined)
        return { reason: `git config of a key not known to be harmless (it can run commands): ${cmdText(c)}` };
      return writeTo(
        "a git hook or git config",
        /\/\.git\/hooks\/|\/\.git\/config$|\/\.gitconfig$|\/\.config\/git\/config$/,
      )(s);
    },
  },
  {
    id: "persist.account",
    category: "persistence",
    severity: "block",
    description: "Creating or changing user accounts, groups and sudo rights",
    when: {
      commands: [
        "useradd",
        "adduser",
        "usermod",
        "userdel",
        "passwd",
        "chpasswd",
        "groupadd",
        "groupmod",
        "gpasswd",
        "visudo",
        "dscl",
        "sysadminctl",
        "net",
      ],
      writePaths: true,
    },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          /^(useradd|adduser|usermod|userdel|passwd|chpasswd|groupadd|groupmod|gpasswd|visudo|dscl|sysadminctl|net)$/.test(
            c.name,
          ) && !(c.name === "net" && !/^(user|localgroup)$/i.test(c.args[0] ?? "")),
      );
      if (c !== undefined) return { reason: `account change: ${cmdText(c)}` };
      return writeTo("account files", /^\/etc\/(passwd|shadow|group|gshadow|sudoers)(\.d\/.*)?$/)(s);
    },
  },
  {
    id: "persist.preload",
    category: "persistence",
    severity: "block",
    description: "Library preloading (/etc/ld.so.preload, LD_PRELOAD, DYLD_INSERT_LIBRARIES)",
    when: { commands: ["export"], assignments: true, writePaths: true },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          c.argv.some((a) => /^(LD_PRELOAD|LD_AUDIT|DYLD_INSERT_LIBRARIES)=/.test(a)) ||
          (c.name === "export" && c.args.some((a) => /^(LD_PRELOAD|LD_AUDIT|DYLD_INSERT_LIBRARIES)=/.test(a))),
      );
      if (c !== undefined) return { reason: `preloads a library: ${cmdText(c)}` };
      return writeTo("the preload list", /^\/etc\/ld\.so\.(preload|conf)/)(s);
    },
  },
  {
    id: "persist.kernel",
    category: "persistence",
    severity: "block",
    description: "Loading kernel modules or changing kernel parameters",
    when: { commands: ["insmod", "modprobe", "rmmod", "kextload", "kmutil", "sysctl"], writePaths: true },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          /^(insmod|modprobe|rmmod|kextload|kmutil)$/.test(c.name) || (c.name === "sysctl" && hasFlag(c.args, "w")),
      );
      if (c !== undefined) return { reason: `kernel change: ${cmdText(c)}` };
      return writeTo("kernel settings", /^\/proc\/sys\/|^\/sys\/(kernel|module)\/|^\/etc\/(sysctl|modules)/)(s);
    },
  },
  {
    id: "persist.immutable",
    category: "persistence",
    severity: "escalate",
    description: "Making files immutable or hiding them from tools (chattr +i, chflags)",
    when: { commands: ["chattr", "chflags"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          (c.name === "chattr" && c.args.some((a) => /^\+[a-z]*[ia]/.test(a))) ||
          (c.name === "chflags" && c.args.some((a) => /schg|uchg|hidden/.test(a))),
      );
      return c !== undefined ? { reason: `makes files immutable: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "persist.container-escape",
    category: "persistence",
    severity: "block",
    description: "Containers with host privileges (--privileged, host root or docker socket mounts, host namespaces)",
    when: { commands: ["docker", "podman", "nerdctl"] },
    detect(s) {
      const c = findCommand(
        s,
        (c) =>
          /^(docker|podman|nerdctl)$/.test(c.name) &&
          /^(run|create|exec)$/.test(c.args[0] ?? "") &&
          c.args.some(
            (a, i) =>
              a === "--privileged" ||
              /^--(pid|ipc|userns|uts)=host$/.test(a) ||
              (/^--cap-add=?(SYS_ADMIN|ALL|SYS_PTRACE)?$/i.test(a) &&
                /SYS_ADMIN|ALL|SYS_PTRACE/i.test(a + (c.args[i + 1] ?? ""))) ||
              ((a === "-v" || a === "--volume" || a === "--mount") &&
                /^(\/|\/var\/run\/docker\.sock|\/etc|\/root|\/home)(:|,|$)|source=\/(,|$)/.test(c.args[i + 1] ?? "")) ||
              /^(-v|--volume=)\/(:|var\/run\/docker\.sock)/.test(a),
          ),
      );
      return c !== undefined ? { reason: `container with host access: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "persist.disable-security",
    category: "persistence",
    severity: "block",
    description: "Turning off firewalls, SELinux/AppArmor, audit daemons or OS protections",
    when: { commands: "any" },
    detect(s) {
      const c = findCommand(s, (c) => {
        // "Set-MpPreference" has no space, so it sits in one word: most commands skip the join
        if (
          !PROTECTION_TOOLS.has(c.name) &&
          !c.name.includes("set-mppreference") &&
          !c.args.some((a) => a.length >= 16 && MP_PREFERENCE.test(a))
        )
          return false;
        const a = c.args.join(" ");
        return (
          (c.name === "ufw" && /^(disable|reset|default allow)/.test(a)) ||
          (c.name === "setenforce" && /^(0|permissive)/i.test(a)) ||
          (/^(iptables|ip6tables)$/.test(c.name) && /(^|\s)(-F|--flush|-P \w+ ACCEPT|-X)(\s|$)/.test(a)) ||
          (c.name === "nft" && /flush ruleset/.test(a)) ||
          (c.name === "systemctl" &&
            /^(stop|disable|mask)\s+(firewalld|ufw|apparmor|auditd|selinux|fail2ban|clamav|falco|osqueryd)/.test(a)) ||
          (c.name === "spctl" && /--master-disable|--global-disable/.test(a)) ||
          (c.name === "csrutil" && /disable/.test(a)) ||
          c.name === "aa-teardown" ||
          (c.name === "auditctl" && /-D|-e 0/.test(a)) ||
          /Set-MpPreference.*-Disable/i.test(`${c.name} ${a}`)
        );
      });
      return c !== undefined ? { reason: `disables a protection: ${cmdText(c)}` } : undefined;
    },
  },
  {
    id: "persist.path-hijack",
    category: "persistence",
    severity: "escalate",
    description: "Placing executables in PATH directories (shadowing commands)",
    when: { writePaths: true },
    detect: writeTo(
      "a file in a PATH directory",
      /\/\.local\/bin\/|\/home\/[^/]+\/bin\/|^\/usr\/local\/s?bin\/|^\/opt\/homebrew\/bin\/|\/\.cargo\/bin\/|\/go\/bin\/|\/\.npm-global\/bin\//,
    ),
  },
  {
    id: "persist.workspace-autorun",
    category: "persistence",
    severity: "escalate",
    description:
      "Writing files an editor, toolchain or coding agent runs or obeys later (.vscode/, .devcontainer/, .cargo/config, .yarnrc.yml, AGENTS.md...)",
    when: { writePaths: true },
    detect: writeTo("a file that runs or steers something later, outside the sandbox", RUNS_LATER_FILES),
  },
];
