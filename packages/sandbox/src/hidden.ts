import * as path from "node:path";

/**
 * Paths under the user's home that hold credentials, keys, tokens or browsing data. The home is
 * not in a sandbox's view at all; this list only matters where a bind brings part of it back
 * (a workspace that is the home, a writable ~/.config): these stay hidden there too (config
 * `sandbox.hide` adds more).
 */
export const HIDDEN_IN_HOME: readonly string[] = [
  // keys and cloud/cluster credentials
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".config/gcloud",
  ".kube",
  ".docker",
  ".oci",
  ".netrc",
  ".git-credentials",
  ".config/gh",
  ".config/hub",
  ".vault-token",
  ".terraform.d",
  ".s3cfg",
  ".boto",
  ".config/rclone",
  ".config/op",
  // package registry tokens
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pypirc",
  ".gem/credentials",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".m2/settings.xml",
  ".gradle/gradle.properties",
  ".nuget/NuGet/NuGet.Config",
  // keychains and password stores
  ".local/share/keyrings",
  ".password-store",
  ".pki",
  // browser and mail profiles
  ".mozilla",
  ".thunderbird",
  ".config/google-chrome",
  ".config/chromium",
  ".config/BraveSoftware",
  ".config/microsoft-edge",
  ".config/vivaldi",
  ".config/opera",
  "snap/firefox",
  "snap/chromium",
  // shell and REPL histories (commands often carry secrets)
  ".bash_history",
  ".zsh_history",
  ".history",
  ".python_history",
  ".node_repl_history",
  ".psql_history",
  ".mysql_history",
  ".lesshst",
  ".viminfo",
  // Palisade's own default config and data
  ".config/palisade",
  ".local/share/palisade",
];

/** Directories holding users' homes: every entry but the sandbox owner's own home is hidden. */
export const HOME_PARENTS: readonly string[] = ["/home", "/Users"];

/** Paths hidden inside any bind, for a user whose home is `home` (absolute): its credentials and the other homes. */
export function defaultHidden(home: string, otherHomes: readonly string[]): string[] {
  const own = path.resolve(home);
  const inHome = HIDDEN_IN_HOME.map((p) => path.join(own, p));
  const others = [...otherHomes, "/root"].map((p) => path.resolve(p)).filter((p) => p !== own && !isWithin(own, p));
  return [...inHome, ...others];
}

/** True when `child` is `parent` or below it (both absolute, normalized). */
export function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
