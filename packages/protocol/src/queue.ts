/**
 * A push-driven AsyncIterable: producers call push()/end()/fail(), one consumer iterates.
 * Used to feed client-streaming and bidi calls and to adapt callback APIs to `for await`.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiter: ((r: IteratorResult<T>) => void) | undefined;
  private failer: ((e: unknown) => void) | undefined;
  private ended = false;
  private error: unknown = undefined;
  private iterating = false;

  get closed(): boolean {
    return this.ended || this.error !== undefined;
  }

  get size(): number {
    return this.items.length;
  }

  push(item: T): boolean {
    if (this.closed) return false;
    const waiter = this.waiter;
    if (waiter) {
      this.waiter = undefined;
      this.failer = undefined;
      waiter({ value: item, done: false });
    } else {
      this.items.push(item);
    }
    return true;
  }

  end(): void {
    if (this.closed) return;
    this.ended = true;
    this.wake();
  }

  fail(err: unknown): void {
    if (this.closed) return;
    this.error = err ?? new Error("queue failed");
    this.wake();
  }

  private wake(): void {
    if (!this.waiter) return;
    const waiter = this.waiter;
    const failer = this.failer;
    this.waiter = undefined;
    this.failer = undefined;
    if (this.error !== undefined && failer) failer(toError(this.error));
    else waiter({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    if (this.iterating) throw new Error("AsyncQueue supports a single consumer");
    this.iterating = true;
    return {
      next: () => {
        if (this.items.length > 0) {
          return Promise.resolve({ value: this.items.shift() as T, done: false });
        }
        if (this.error !== undefined) return Promise.reject(toError(this.error));
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise<IteratorResult<T>>((resolve, reject) => {
          this.waiter = resolve;
          this.failer = reject;
        });
      },
      return: () => {
        this.ended = true;
        this.items.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
