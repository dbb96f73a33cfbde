// Group commit for synchronous=NORMAL: commits return as soon as their WAL frames are in the OS
// page cache (durable against a process kill), and `sync()` makes everything committed so far
// durable against a power cut by fdatasyncing the WAL on libuv's thread pool. The event loop never
// waits for the disk, and callers that arrive while a sync runs share the next one.
import { close, closeSync, fdatasync, fstat, open, stat } from "node:fs";
import type { Stats } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";

// fd-based calls: fs/promises would wrap every descriptor in a FileHandle.
const statAsync = promisify(stat);
const fstatAsync = promisify(fstat);
const openAsync = promisify(open);
const closeAsync = promisify(close);
const fdatasyncAsync = promisify(fdatasync);

const sameFile = (a: Stats, b: Stats): boolean => a.ino === b.ino && a.dev === b.dev;

export class WalSync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private dirSynced = false;
  /** The WAL, kept open between syncs (one stat and one fdatasync per sync, not open/sync/close). */
  private wal: { fd: number; stats: Stats } | undefined;
  private closed = false;

  constructor(private readonly dbPath: string) {}

  /** Resolves once every commit made before this call is on disk (WAL synced). */
  sync(): Promise<void> {
    if (!this.running) {
      const run = this.syncOnce().finally(() => {
        if (this.running === run) this.running = undefined;
      });
      this.running = run;
      return run;
    }
    // The running sync may have started before this caller's commit: wait for the next one.
    this.next ??= this.running.then(
      () => this.startNext(),
      () => this.startNext(),
    );
    return this.next;
  }

  /** Closes the kept WAL descriptor (the store is closing). */
  close(): void {
    this.closed = true;
    if (this.wal) closeSync(this.wal.fd);
    this.wal = undefined;
  }

  private startNext(): Promise<void> {
    this.next = undefined;
    return this.sync();
  }

  private async syncOnce(): Promise<void> {
    const path = `${this.dbPath}-wal`;
    let current: Stats;
    try {
      current = await statAsync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return; // no WAL: everything is in the synced main file
      throw err;
    }
    // SQLite deletes the WAL when the last connection closes and may create a new one later: a
    // kept descriptor of a replaced file would sync the wrong file, so the identity is checked.
    if (this.wal && !sameFile(this.wal.stats, current)) {
      const old = this.wal.fd;
      this.wal = undefined;
      await closeAsync(old);
    }
    if (!this.wal) {
      const fd = await openAsync(path, "r+");
      const stats = await fstatAsync(fd);
      if (this.closed) {
        closeSync(fd);
        return;
      }
      this.wal = { fd, stats };
    }
    await fdatasyncAsync(this.wal.fd);
    if (!this.dirSynced) {
      // The WAL's directory entry must be durable too (SQLite does this itself only on its
      // first own sync of the file, which NORMAL defers to the first checkpoint).
      await syncDirectory(dirname(this.dbPath));
      this.dirSynced = true;
    }
  }
}

async function syncDirectory(dir: string): Promise<void> {
  let fd: number | undefined;
  try {
    fd = await openAsync(dir, "r");
    await fdatasyncAsync(fd);
  } catch (err) {
    // Platforms that cannot sync a directory (Windows: EPERM/EISDIR) have nothing to sync.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "EISDIR" && code !== "EINVAL" && code !== "EACCES") throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
