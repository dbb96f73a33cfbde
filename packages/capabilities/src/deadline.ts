/**
 * A call's time limit that stops counting while the call waits for its user (an MCP server's
 * form is open): `pause` and `resume` nest, and the time left is kept across a pause. The
 * user's own wait is bounded by the approval's deadline, not by this one. One runs per call: the
 * Engine arms it and the capability host `tighten`s it to the capability's own limit when that is
 * shorter, so a single timer cuts the call and says whose limit it was.
 */
export class Deadline {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private left: number;
  private since = 0;
  private paused = 0;
  private over = false;

  constructor(
    ms: number,
    private onExpire: () => void,
  ) {
    this.left = ms;
    this.arm();
  }

  private arm(): void {
    this.since = Date.now();
    this.timer = setTimeout(
      () => {
        this.over = true;
        this.onExpire();
      },
      Math.max(0, this.left),
    );
  }

  pause(): void {
    if (this.over || this.paused++ > 0) return;
    clearTimeout(this.timer);
    this.left -= Date.now() - this.since;
  }

  resume(): void {
    if (this.over || --this.paused > 0) return;
    this.arm();
  }

  /** The milliseconds left now (0 once it passed or was cleared). */
  remaining(): number {
    if (this.over) return 0;
    return Math.max(0, this.paused > 0 ? this.left : this.left - (Date.now() - this.since));
  }

  /**
   * Brings it forward to `ms` from now when that is sooner, and then `onExpire` is what runs when
   * it passes; returns whether it did.
   */
  tighten(ms: number, onExpire: () => void): boolean {
    if (this.over || ms >= this.remaining()) return false;
    this.onExpire = onExpire;
    this.left = ms;
    if (this.paused > 0) return true;
    clearTimeout(this.timer);
    this.arm();
    return true;
  }

  /** Stops it for good (the call is over). */
  clear(): void {
    this.over = true;
    clearTimeout(this.timer);
  }

  /** `ask` with this deadline stopped while it waits. */
  around<A extends unknown[], R>(ask: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      this.pause();
      try {
        return await ask(...args);
      } finally {
        this.resume();
      }
    };
  }
}
