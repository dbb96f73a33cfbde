// What the tmux chat e2e files (e2e-tmux*.test.ts) share: where the repository is, whether tmux
// can run here, and a terminal to type into and read from that waits on what it shows.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** The repository's root (this file is apps/cli/test/tmux.ts). */
export const repoRoot = join(import.meta.dirname, "..", "..", "..");

/** tmux is installed (the e2e files skip without it; `make test` installs it where apt exists). */
export const hasTmux = (() => {
  try {
    execFileSync("tmux", ["-V"]);
    return true;
  } catch {
    return false;
  }
})();

/**
 * How long a test waits at most for the chat. The waits below have no deadline of their own:
 * they end when the screen shows what they wait for, or fail at once when it shows that it never
 * will (the chat exited, the turn ended without it). On a machine at full load a step only takes
 * longer; this bound is for a chat that hangs, far above what any step takes.
 */
export const E2E_TEST_TIMEOUT_MS = 600_000;

/** A wait that outlasts this gives up with the pane in its error (the test's timeout would not show it). */
const HANG_MS = E2E_TEST_TIMEOUT_MS - 60_000;

/** What the command line in the pane prints when the chat exits (`…; echo CHAT-EXITED rc=$?`). */
const EXITED = "CHAT-EXITED";

/** A status line with the turn's spinner: the chat is working on a turn. */
const BUSY = /(?:working|cancelling) \d+s/;

const count = (text: string, what: string): number => text.split(what).length - 1;

export interface WaitOptions {
  /** The wait is for something the running turn shows: fail once the turn ended without it. */
  inTurn?: boolean;
}

/** A tmux pane that runs the chat (or a shell), driven with send-keys and read with capture-pane. */
export class Terminal {
  constructor(
    readonly session: string,
    /** A tmux server of its own (`tmux -L`), so other tests' sessions never mix with this one. */
    readonly server?: string,
    /** Lines of scrollback `pane()` reads. */
    private readonly scrollback = 300,
    /** Join wrapped lines (`capture-pane -J`). */
    private readonly join = false,
  ) {}

  tmux(...args: string[]): string {
    return execFileSync("tmux", [...(this.server ? ["-L", this.server] : []), ...args], { encoding: "utf8" });
  }

  /** The screen and its scrollback. */
  pane(): string {
    return this.tmux(
      "capture-pane",
      "-p",
      ...(this.join ? ["-J"] : []),
      "-t",
      this.session,
      "-S",
      `-${this.scrollback}`,
    );
  }

  /** The visible screen, one string per row. */
  screen(): string[] {
    return this.tmux("capture-pane", "-p", "-t", this.session).replace(/\n$/, "").split("\n");
  }

  /** The last non-empty row: the chat's status line. */
  statusLine(): string {
    return (
      this.screen()
        .filter((r) => r.trim() !== "")
        .pop() ?? ""
    );
  }

  keys(...k: string[]): void {
    this.tmux("send-keys", "-t", this.session, ...k);
  }

  /**
   * Waits until `check` holds on the pane, polling what tmux shows. Fails at once, with the pane,
   * when the chat exits meanwhile (unless the exit is what is awaited) or, with `inTurn`, when the
   * turn it belongs to ended without it.
   */
  async until(what: string, check: (pane: string) => boolean, options: WaitOptions = {}): Promise<string> {
    const exitsBefore = count(this.pane(), EXITED);
    const hang = Date.now() + HANG_MS;
    let sawBusy = false;
    for (;;) {
      const p = this.pane();
      if (check(p)) return p;
      if (Date.now() > hang)
        throw new Error(`${what} did not happen in ${String(HANG_MS / 1000)} s: the chat hangs; the pane shows:\n${p}`);
      if (count(p, EXITED) > exitsBefore && !what.includes(EXITED))
        throw new Error(`the chat exited while waiting for ${what}; the pane shows:\n${p}`);
      if (options.inTurn) {
        const busy = BUSY.test(this.statusLine());
        // Seen working, now idle: the turn may be over. A capture can land inside a frame being
        // drawn, so the end is believed only on a screen that stopped changing.
        if (sawBusy && !busy && (await this.turnEnded()) && !check(this.pane()))
          throw new Error(`the turn ended without ${what}; the pane shows:\n${this.pane()}`);
        sawBusy ||= busy;
      }
      await sleep(100);
    }
  }

  /** Waits until the pane shows `text` (see `until`). */
  waitForPane(text: string | RegExp | ((pane: string) => boolean), options: WaitOptions = {}): Promise<string> {
    const check =
      typeof text === "string"
        ? (p: string) => p.includes(text)
        : typeof text === "function"
          ? text
          : (p: string) => text.test(p);
    return this.until(
      typeof text === "function" ? "the awaited screen" : `the pane showing ${String(text)}`,
      check,
      options,
    );
  }

  /** The status line of a settled screen shows no running turn. */
  private async turnEnded(): Promise<boolean> {
    const rows = await this.settled();
    return !BUSY.test(rows.filter((r) => r.trim() !== "").pop() ?? "");
  }

  /** Waits until no turn is running (the status line of a settled screen has no spinner). */
  async waitIdle(): Promise<void> {
    for (;;) {
      await this.until("the end of the turn", () => !BUSY.test(this.statusLine()));
      if (await this.turnEnded()) return;
    }
  }

  /**
   * The screen once it stopped changing: the same in two captures in a row. A frame is written
   * in pieces; one capture can land between two of them.
   */
  async settled(): Promise<string[]> {
    let last = this.screen().join("\n");
    const hang = Date.now() + HANG_MS;
    for (;;) {
      if (Date.now() > hang) throw new Error(`the screen never stopped changing; it shows:\n${last}`);
      await sleep(100);
      const now = this.screen().join("\n");
      if (now === last) return now.split("\n");
      last = now;
    }
  }

  /** Waits until the screen differs from `before` (a key took effect), then until it settled. */
  async changedFrom(before: string[]): Promise<string[]> {
    const was = before.join("\n");
    await this.until("the screen to change", () => this.screen().join("\n") !== was);
    return this.settled();
  }
}
