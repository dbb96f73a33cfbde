import { AsyncQueue } from "./queue.js";

interface EventReadable {
  on(event: string, listener: (...args: never[]) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  isPaused(): boolean;
}

const HIGH_WATER = 256;
const LOW_WATER = 64;

/**
 * Reads a grpc-js call as an AsyncIterable with backpressure.
 * Node's own `for await` over a Readable destroys a Duplex when the loop ends, which would
 * kill the write side of a bidi call before its status is sent; this adapter never destroys.
 */
export function iterateReadable<T>(
  stream: EventReadable,
  mapError: (err: unknown) => unknown,
  hooks: { onDone?: () => void; endEvent?: string } = {},
): AsyncIterable<T> & { fail(err: unknown): void } {
  const queue = new AsyncQueue<T>();
  stream.on("data", (msg: T) => {
    queue.push(msg);
    if (queue.size > HIGH_WATER) stream.pause();
  });
  stream.on("error", (err: unknown) => {
    hooks.onDone?.();
    queue.fail(mapError(err));
  });
  stream.on(hooks.endEvent ?? "end", () => {
    hooks.onDone?.();
    queue.end();
  });
  const iterator = queue[Symbol.asyncIterator]();
  return {
    fail: (err) => queue.fail(err),
    [Symbol.asyncIterator]: () => ({
      next: async () => {
        const r = await iterator.next();
        if (stream.isPaused() && queue.size < LOW_WATER) stream.resume();
        return r;
      },
      return: async () => {
        hooks.onDone?.();
        return iterator.return ? iterator.return() : { value: undefined, done: true };
      },
    }),
  };
}
