/** Base class of every error the Shield raises (outside `evaluate`, which never throws). */
export class ShieldError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
