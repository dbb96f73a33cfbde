// The Engine's runtime directory for capability sockets: created 0700 (mkdtemp), one 0700
// subdirectory per capability (so a sandbox can bind exactly one), removed on stop. Directories
// left by an Engine that was killed are removed by the next one.
import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "palisade-caps-";
/** sockaddr_un.sun_path is 108 bytes on Linux (104 on macOS), including the final NUL. */
const MAX_SOCKET_PATH = 103;

/** $XDG_RUNTIME_DIR when it is a directory only its owner can use, else the system temp dir. */
export async function defaultRunBase(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const xdg = env.XDG_RUNTIME_DIR;
  if (xdg) {
    try {
      const s = await stat(xdg);
      if (s.isDirectory() && (s.mode & 0o077) === 0 && s.uid === process.getuid?.()) return xdg;
    } catch {
      // not usable: fall back
    }
  }
  return tmpdir();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class RunDir {
  private constructor(readonly path: string) {}

  /** Creates `<base>/palisade-caps-<pid>-XXXXXX` (0700) and removes stale ones of dead Engines. */
  static async create(base: string): Promise<RunDir> {
    await removeStale(base);
    return new RunDir(await mkdtemp(join(base, `${PREFIX}${process.pid}-`)));
  }

  /** A fresh socket path for capability `id` (its own 0700 directory; any old socket removed). */
  async socketFor(id: string, index: number): Promise<string> {
    const long = join(this.path, id);
    // Ids may be long; the socket path may not.
    const dir = join(long, "cap.sock").length <= MAX_SOCKET_PATH ? long : join(this.path, String(index));
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const socket = join(dir, "cap.sock");
    await rm(socket, { force: true });
    return socket;
  }

  async remove(): Promise<void> {
    await rm(this.path, { recursive: true, force: true });
  }
}

async function removeStale(base: string): Promise<void> {
  let names: string[];
  try {
    names = await readdir(base);
  } catch {
    return;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const m = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const dir = join(base, name);
    try {
      if ((await stat(dir)).uid !== uid) continue;
      await rm(dir, { recursive: true, force: true });
    } catch {
      // raced with another Engine cleaning up: fine
    }
  }
}
