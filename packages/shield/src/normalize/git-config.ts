/**
 * Git configuration keys known not to make git run a program, read another file or reach another
 * host: formatting, identity, merge and fetch strategy, performance switches. Everything else —
 * `core.fsmonitor`, `core.hooksPath`, `core.sshCommand`, `core.pager`, `include.path`,
 * `includeIf.*`, `credential.helper`, `filter.*`, `diff.*.textconv`, `alias.*`, `url.*`,
 * `remote.*`, keys of a newer git nobody listed yet — counts as able to run something, now or
 * at the user's next git command. An allowlist, because the list of keys that run programs grows
 * with every git release and a forgotten one is a door.
 */
const HARMLESS_KEYS = new Set(
  [
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "core.filemode",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.quotepath",
    "core.longpaths",
    "core.symlinks",
    "core.abbrev",
    "core.whitespace",
    "core.compression",
    "core.looseCompression",
    "core.bigFileThreshold",
    "core.preloadIndex",
    "core.untrackedCache",
    "core.commitGraph",
    "core.checkStat",
    "core.trustctime",
    "core.splitIndex",
    "core.sparseCheckout",
    "core.sparseCheckoutCone",
    "core.logAllRefUpdates",
    "core.multiPackIndex",
    "user.name",
    "user.email",
    "user.useConfigOnly",
    "author.name",
    "author.email",
    "committer.name",
    "committer.email",
    "init.defaultBranch",
    "pull.rebase",
    "pull.ff",
    "merge.ff",
    "merge.conflictStyle",
    "merge.renames",
    "merge.stat",
    "rebase.autoStash",
    "rebase.autoSquash",
    "rebase.updateRefs",
    "rerere.enabled",
    "rerere.autoUpdate",
    "push.default",
    "push.autoSetupRemote",
    "push.followTags",
    "fetch.prune",
    "fetch.pruneTags",
    "fetch.parallel",
    "fetch.writeCommitGraph",
    "fetch.fsckObjects",
    "transfer.fsckObjects",
    "receive.fsckObjects",
    "branch.autoSetupMerge",
    "branch.autoSetupRebase",
    "branch.sort",
    "tag.sort",
    "checkout.workers",
    "checkout.defaultRemote",
    "clone.defaultRemoteName",
    "clone.rejectShallow",
    "diff.renames",
    "diff.renameLimit",
    "diff.algorithm",
    "diff.noprefix",
    "diff.mnemonicPrefix",
    "diff.context",
    "diff.colorMoved",
    "diff.indentHeuristic",
    "diff.statGraphWidth",
    "diff.submodule",
    "diff.ignoreSubmodules",
    "status.short",
    "status.branch",
    "status.showUntrackedFiles",
    "status.submoduleSummary",
    "status.relativePaths",
    "log.date",
    "log.decorate",
    "log.abbrevCommit",
    "log.follow",
    "log.showSignature",
    "format.pretty",
    "commit.verbose",
    "commit.status",
    "commit.cleanup",
    "gc.auto",
    "gc.autoDetach",
    "pack.threads",
    "pack.windowMemory",
    "index.version",
    "index.threads",
    "feature.manyFiles",
    "feature.experimental",
    "maintenance.auto",
    "http.postBuffer",
    "http.lowSpeedLimit",
    "http.lowSpeedTime",
    "http.version",
    "protocol.version",
    "advice.detachedHead",
    "column.ui",
    "grep.lineNumber",
    "grep.patternType",
  ].map((k) => k.toLowerCase()),
);

/** Whole sections that only choose colours or hints. */
const HARMLESS_SECTIONS = /^(color|advice)\.[a-z0-9.-]+$/;

/** Whether setting `key` could make git run a program (or read config from elsewhere): true unless listed as harmless. */
export function gitConfigRunsProgram(key: string): boolean {
  const k = key.trim().toLowerCase();
  return !(HARMLESS_KEYS.has(k) || HARMLESS_SECTIONS.test(k));
}

/** The key of a `-c key=value` / `--config key=value` argument. */
export function gitConfigKey(assignment: string): string {
  const eq = assignment.indexOf("=");
  return eq < 0 ? assignment : assignment.slice(0, eq);
}

/** A URL git would reach by running a command (`ext::`, `fd::`) or read as an option. */
const RUNNING_URL = /^(ext|fd)::|^-/i;

/**
 * Whether an entry of a repository's own `.git/config` makes git run a program. Besides the
 * harmless keys, the entries `git clone`, `git init`, `git remote`, `git branch -u` and
 * `git submodule init` write themselves are allowed: the repository format, remotes and their
 * refspecs, branch upstreams, submodule URLs (none through a command transport) and update modes.
 */
export function repoConfigEntryRunsProgram(key: string, value: string): boolean {
  const k = key.trim().toLowerCase();
  if (!gitConfigRunsProgram(k)) return false;
  if (/^core\.(repositoryformatversion|bare)$|^extensions\.objectformat$/.test(k)) return false;
  if (/^(remote\..+\.(url|pushurl)|submodule\..+\.url)$/.test(k)) return RUNNING_URL.test(value.trim());
  if (/^remote\..+\.(fetch|push|tagopt|prune|prunetags|mirror|skipdefaultupdate)$/.test(k)) return false;
  if (/^branch\..+\.(remote|pushremote|merge|rebase)$/.test(k)) return false;
  if (/^submodule\..+\.(active|branch|shallow|path|ignore|fetchrecursesubmodules)$/.test(k)) return false;
  if (/^submodule\..+\.update$/.test(k)) return !/^(checkout|rebase|merge|none)$/.test(value.trim());
  return true;
}
