/**
 * The system part of every tool sandbox's view: what a toolchain needs to run, read-only, and
 * nothing that holds a secret or a socket. Everything else (the home, /var, /srv, /opt, /mnt,
 * /media, /run, the rest of /etc) is absent unless a spec lists it.
 */
export const SYSTEM_DIRS: readonly string[] = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** Entries of /etc a toolchain reads, and why. */
export const ETC_ENTRIES: ReadonlyArray<{ path: string; why: string }> = [
  { path: "/etc/ld.so.cache", why: "the dynamic linker's library cache" },
  { path: "/etc/ld.so.conf", why: "the dynamic linker's search path" },
  { path: "/etc/ld.so.conf.d", why: "the dynamic linker's search path" },
  { path: "/etc/alternatives", why: "Debian's links for commands such as awk, editor, java" },
  { path: "/etc/ssl/certs", why: "CA certificates (TLS through the egress proxy)" },
  { path: "/etc/ssl/openssl.cnf", why: "OpenSSL's configuration" },
  { path: "/etc/ca-certificates", why: "CA certificates (Fedora, Arch)" },
  { path: "/etc/pki/tls/certs", why: "CA certificates (Fedora, RHEL)" },
  { path: "/etc/pki/ca-trust/extracted", why: "CA certificates (Fedora, RHEL)" },
  { path: "/etc/localtime", why: "the time zone" },
  { path: "/etc/timezone", why: "the time zone's name" },
  { path: "/etc/nsswitch.conf", why: "how names and users are looked up (files)" },
  { path: "/etc/host.conf", why: "resolver options" },
  { path: "/etc/gai.conf", why: "address ordering" },
  { path: "/etc/protocols", why: "protocol names" },
  { path: "/etc/services", why: "port names" },
  { path: "/etc/mime.types", why: "file types (Python, curl)" },
  { path: "/etc/magic", why: "file(1)" },
  { path: "/etc/magic.mime", why: "file(1)" },
  { path: "/etc/os-release", why: "the distribution's name" },
  { path: "/etc/debian_version", why: "the distribution's version" },
  { path: "/etc/locale.alias", why: "locale names" },
  { path: "/etc/inputrc", why: "readline" },
  { path: "/etc/terminfo", why: "terminal descriptions" },
];

/**
 * Files made for each sandbox instead of the host's: /etc/passwd and /etc/group list only root,
 * the sandbox's own user and nobody (the host's name other users, and their homes); /etc/hosts
 * names only localhost and the sandbox's host name.
 */
export const MADE_ETC_FILES: readonly string[] = ["/etc/passwd", "/etc/group", "/etc/hosts"];

/** Mount points every sandbox gets fresh: private /tmp and /run, /var/run linked to /run, a minimal /dev, its own /proc. */
export const PRIVATE_ROOTS: readonly string[] = ["/tmp", "/run", "/var/run", "/dev", "/proc"];

export interface EtcIdentity {
  uid: number;
  gid: number;
  user: string;
  group: string;
  home: string;
}

/** The contents of the made /etc files for a sandbox run by `id` (pure). */
export function madeEtc(id: EtcIdentity, hostname: string): Record<string, string> {
  const users = [`root:x:0:0:root:/root:/bin/sh`];
  const groups = ["root:x:0:"];
  if (id.uid !== 0) users.push(`${id.user}:x:${id.uid}:${id.gid}:${id.user}:${id.home}:/bin/sh`);
  else users[0] = `root:x:0:0:root:${id.home}:/bin/sh`;
  if (id.gid !== 0) groups.push(`${id.group}:x:${id.gid}:`);
  users.push("nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin");
  groups.push("nogroup:x:65534:");
  return {
    "/etc/passwd": `${users.join("\n")}\n`,
    "/etc/group": `${groups.join("\n")}\n`,
    "/etc/hosts": `127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t${hostname}\n`,
  };
}
