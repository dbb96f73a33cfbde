import * as path from "node:path";

/**
 * Paths under the user's home that hold credentials, keys, tokens or browsing data. None of
 * them is ever visible inside a sandbox (config `sandbox.hide` adds more).
 */
export const HIDDEN_IN_HOME: readonly string[] = [
  // keys and cloud/cluster credentials
  ".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".oci",
  ".netrc", ".git-credentials", ".config/gh", ".config/hub", ".vault-token", ".terraform.d",
  ".s3cfg", ".boto", ".config/rclone", ".config/op",
  // package registry tokens
  ".npmrc", ".yarnrc", ".yarnrc.yml", ".pypirc", ".gem/credentials", ".cargo/credentials", ".cargo/credentials.toml",
  ".m2/settings.xml", ".gradle/gradle.properties", ".nuget/NuGet/NuGet.Config",
  // keychains and password stores
  ".local/share/keyrings", ".password-store", ".pki",
  // browser and mail profiles
  ".mozilla", ".thunderbird", ".config/google-chrome", ".config/chromium", ".config/BraveSoftware",
  ".config/microsoft-edge", ".config/vivaldi", ".config/opera", "snap/firefox", "snap/chromium",
  // shell and REPL histories (commands often carry secrets)
  ".bash_history", ".zsh_history", ".history", ".python_history", ".node_repl_history", ".psql_history", ".mysql_history",
  ".lesshst", ".viminfo",
  // Palisade's own default config and data
  ".config/palisade", ".local/share/palisade",
];

/** System paths never visible: password hashes, host keys, container engine and session sockets. */
export const HIDDEN_SYSTEM: readonly string[] = [
  "/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
  "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key", "/etc/ssh/ssh_host_dsa_key",
  "/run/user", "/run/docker.sock", "/run/containerd", "/run/podman", "/run/snapd.socket", "/var/lib/docker",
  "/root",
];

/** Directories holding users' homes: every entry but the sandbox owner's own home is hidden. */
export const HOME_PARENTS: readonly string[] = ["/home", "/Users"];

/** The default hidden list for a user whose home is `home` (absolute). */
export function defaultHidden(home: string, otherHomes: readonly string[]): string[] {
  const own = path.resolve(home);
  const inHome = HIDDEN_IN_HOME.map((p) => path.join(own, p));
  const system = HIDDEN_SYSTEM.filter((p) => p !== own && !isWithin(own, p));
  const others = otherHomes.map((p) => path.resolve(p)).filter((p) => p !== own && !isWithin(own, p));
  return [...inHome, ...system, ...others];
}

/** True when `child` is `parent` or below it (both absolute, normalized). */
export function isWithin(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
