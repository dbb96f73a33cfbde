// One sandboxed process per (capability, workspace): a sandbox binds exactly one workspace, so a
// session in another directory gets its own process, started on first use and stopped when it
// has been the least recently used of too many.
import { realpath } from "node:fs/promises";
import { CapabilityRuntime } from "./runtime.js";
import type { InstanceStatus, RuntimeOptions } from "./runtime.js";

interface Entry {
  runtime: CapabilityRuntime;
  started: Promise<void>;
  usedAt: number;
  busy: number;
}

export class WorkspaceProcesses {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly options: RuntimeOptions,
    private readonly max: number,
  ) {}

  /**
   * The process of `primary`'s capability for `workspace`: `primary` itself when it is that
   * workspace, else one started (once) for it. Resolves to an error text when it cannot start.
   */
  async forWorkspace(
    primary: CapabilityRuntime,
    workspace: string,
  ): Promise<{ runtime: CapabilityRuntime; workspace: string; release: () => void } | { error: string }> {
    let real: string;
    try {
      real = await realpath(workspace);
    } catch (err) {
      return {
        error: `the session's workspace ${workspace} does not exist (${(err as NodeJS.ErrnoException).code ?? String(err)}); create it or start the session elsewhere`,
      };
    }
    if (real === primary.sandboxedWorkspace) return { runtime: primary, workspace: real, release: () => undefined };
    const key = `${primary.config.id}\0${real}`;
    let entry = this.entries.get(key);
    if (!entry) {
      const runtime = new CapabilityRuntime(primary.config, this.options, real);
      entry = { runtime, started: runtime.start(), usedAt: Date.now(), busy: 1 };
      this.entries.set(key, entry);
      await this.evict();
    } else entry.busy++;
    entry.usedAt = Date.now();
    const used = entry;
    // Busy until the caller's call is done: a process in use is never evicted.
    const release = (): void => {
      used.busy--;
      used.usedAt = Date.now();
    };
    await entry.started;
    // Stopped when idle (or not started yet): it starts again for this call.
    await entry.runtime.ensureStarted();
    if (!entry.runtime.ready) {
      release();
      if (this.entries.get(key) === entry) this.entries.delete(key);
      const message = entry.runtime.status().message;
      await entry.runtime.stop();
      return { error: `capability ${primary.config.id} could not start for workspace ${real}: ${message}` };
    }
    return { runtime: entry.runtime, workspace: real, release };
  }

  /** The processes started for other workspaces than `capabilityId`'s own. */
  instances(capabilityId: string): InstanceStatus[] {
    return [...this.entries.values()]
      .filter((e) => e.runtime.config.id === capabilityId)
      .map((e) => {
        const s = e.runtime.status();
        return {
          workspace: e.runtime.workspace ?? "",
          state: s.state,
          process: s.process ?? "stopped",
          ...(s.pid !== undefined ? { pid: s.pid } : {}),
          message: s.message,
        };
      });
  }

  /** Stops the least recently used processes beyond the limit (never one that is starting for a call). */
  private async evict(): Promise<void> {
    const idle = [...this.entries].filter(([, e]) => e.busy === 0).sort((a, b) => a[1].usedAt - b[1].usedAt);
    while (this.entries.size > this.max && idle.length > 0) {
      const [key, e] = idle.shift() as [string, Entry];
      this.entries.delete(key);
      await e.runtime.stop();
    }
  }

  async stop(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => e.runtime.stop()));
  }
}
