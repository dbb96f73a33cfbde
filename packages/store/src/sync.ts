// Group commit for synchronous=NORMAL: commits return as soon as their WAL frames are in the OS
// page cache (durable against a process kill), and `sync()` makes everything committed so far
// durable against a power cut by fdatasyncing the WAL on libuv's thread pool. The event loop never
// waits for the disk, and callers that arrive while a sync runs share the next one.
import { close, closeSync, fdatasync, fstat, open, stat } from "node:fs";
import type { Stats } from "node:fs";
import { dirname } from "node:path";

const call = <T>(fn: (cb: (err: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));

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
      current = await call<Stats>((cb) => stat(path, cb));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return; // no WAL: everything is in the synced main file
      throw err;
    }
    // SQLite deletes the WAL when the last connection closes and may create a new one later: a
    // kept descriptor of a replaced file would sync the wrong file, so the identity is checked.
    if (this.wal && !sameFile(this.wal.stats, current)) {
      const old = this.wal.fd;
      this.wal = undefined;
      await call<void>((cb) => close(old, (err) => cb(err, undefined)));
    }
    if (!this.wal) {
      const fd = await call<number>((cb) => open(path, "r+", cb));
      const stats = await call<Stats>((cb) => fstat(fd, cb));
      if (this.closed) {
        closeSync(fd);
        return;
      }
      this.wal = { fd, stats };
    }
    const { fd } = this.wal;
    await call<void>((cb) => fdatasync(fd, (err) => cb(err, undefined)));
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
    fd = await call<number>((cb) => open(dir, "r", cb));
    const opened = fd;
    await call<void>((cb) => fdatasync(opened, (err) => cb(err, undefined)));
  } catch (err) {
    // Platforms that cannot sync a directory (Windows: EPERM/EISDIR) have nothing to sync.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "EISDIR" && code !== "EINVAL" && code !== "EACCES") throw err;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
