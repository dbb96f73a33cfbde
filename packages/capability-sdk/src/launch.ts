// How a capability learns it was launched by the Engine: PALISADE_CAPABILITY_SOCKET names the
// unix socket to listen on, and the first line of stdin is the per-launch secret. The secret
// comes through a pipe, not the environment, because another process of the same user can read
// /proc/<pid>/environ; the pipe's end of file then means the Engine is gone.
import { MIN_SECRET_LENGTH } from "./auth.js";

/** Environment variable naming the socket path an Engine-launched capability listens on. */
export const SOCKET_ENV = "PALISADE_CAPABILITY_SOCKET";

/** Longest first line read while waiting for the secret. */
const MAX_LINE = 1024;

export class LaunchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * Reads the first line of `stdin` (the launch secret) and then keeps reading: `onEnd` runs once
 * when the stream ends or fails, i.e. when the Engine closed the pipe or died.
 */
export function readLaunchSecret(stdin: NodeJS.ReadableStream, onEnd: () => void, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    let settled = false;
    let ended = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new LaunchError(
              `no launch secret on stdin within ${timeoutMs} ms: ${SOCKET_ENV} is set, so the Engine must write the secret as the first line of stdin`,
            ),
          ),
        ),
      timeoutMs,
    );
    const end = (): void => {
      if (ended) return;
      ended = true;
      settle(() =>
        reject(
          new LaunchError("stdin ended before the launch secret: the Engine that launched this capability is gone"),
        ),
      );
      onEnd();
    };
    stdin.on("data", (chunk: Buffer | string) => {
      if (settled) return; // after the secret, stdin is only watched for its end
      buffer += typeof chunk === "string" ? chunk : chunk.toString("utf8");
      const nl = buffer.indexOf("\n");
      if (nl === -1) {
        if (buffer.length > MAX_LINE)
          settle(() =>
            reject(new LaunchError(`the first line of stdin is over ${MAX_LINE} bytes: it must be the launch secret`)),
          );
        return;
      }
      const secret = buffer.slice(0, nl).trim();
      buffer = "";
      if (secret.length < MIN_SECRET_LENGTH)
        settle(() =>
          reject(
            new LaunchError(
              `the launch secret on stdin is ${secret.length} characters; at least ${MIN_SECRET_LENGTH} are required`,
            ),
          ),
        );
      else settle(() => resolve(secret));
    });
    stdin.once("end", end);
    stdin.once("close", end);
    stdin.once("error", end);
    stdin.resume();
  });
}
