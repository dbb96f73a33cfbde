// Group commit for synchronous=NORMAL: commits return as soon as their WAL frames are in the OS
// page cache (durable against a process kill), and `sync()` makes everything committed so far
// durable against a power cut by fsyncing the WAL on libuv's thread pool. The event loop never
// waits for the disk, and callers that arrive while an fsync runs share the next one.
import { open } from "node:fs/promises";
import { dirname } from "node:path";

export class WalSync {
  private running: Promise<void> | undefined;
  private next: Promise<void> | undefined;
  private dirSynced = false;

  constructor(private readonly dbPath: string) {}

  /** Resolves once every commit made before this call is on disk (WAL fsynced). */
  sync(): Promise<void> {
    if (!this.running) {
      const run = this.fsyncOnce().finally(() => {
        if (this.running === run) this.running = undefined;
      });
      this.running = run;
      return run;
    }
    // The running fsync may have started before this caller's commit: wait for the next one.
    this.next ??= this.running.then(
      () => this.startNext(),
      () => this.startNext(),
    );
    return this.next;
  }

  private startNext(): Promise<void> {
    this.next = undefined;
    return this.sync();
  }

  private async fsyncOnce(): Promise<void> {
    // Opened per sync, so a WAL deleted and recreated by SQLite (last connection closed) is
    // never missed; open/fsync/close all run off the event loop.
    let wal;
    try {
      wal = await open(`${this.dbPath}-wal`, "r+");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return; // no WAL: everything is in the synced main file
      throw err;
    }
    try {
      await wal.sync();
    } finally {
      await wal.close();
    }
    if (!this.dirSynced) {
      // The WAL's directory entry must be durable too (SQLite does this itself only on its
      // first own sync of the file, which NORMAL defers to the first checkpoint).
      await syncDirectory(dirname(this.dbPath));
      this.dirSynced = true;
    }
  }
}

async function syncDirectory(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch (err) {
    // Platforms that cannot fsync a directory (Windows: EPERM/EISDIR) have nothing to sync.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "EPERM" && code !== "EISDIR" && code !== "EINVAL" && code !== "EACCES") throw err;
  } finally {
    await handle?.close();
  }
}
