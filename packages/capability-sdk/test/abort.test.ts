import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RpcError, Code } from "@palisade/protocol";
import { defineCapability } from "@palisade/capability-sdk";
import { json, start } from "./helpers.js";
import type { Harness } from "./helpers.js";

/** Server-side record of how each call ended, keyed by the call's `id` argument. */
const outcomes = new Map<string, string>();
const started = new Map<string, () => void>();

function whenStarted(id: string): Promise<void> {
  return new Promise((resolve) => started.set(id, resolve));
}

const cap = defineCapability({
  id: "waiter",
  tools: [
    {
      name: "wait",
      description: "Waits until cancelled (or 10 s), recording what stopped it.",
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      handler: async (args: { id: string }, ctx) => {
        started.get(args.id)?.();
        const outcome = await new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve("timeout"), 10_000);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve(`aborted: ${(ctx.signal.reason as Error).message}`);
          });
        });
        outcomes.set(args.id, outcome);
        return { outcome };
      },
      async *stream(args: { id: string }, ctx) {
        started.get(args.id)?.();
        try {
          while (!ctx.signal.aborted) {
            yield "tick";
            await new Promise((r) => setTimeout(r, 10));
          }
        } finally {
          // Runs whether the loop saw the abort or the SDK closed the generator at a yield.
          outcomes.set(
            args.id,
            ctx.signal.aborted ? `aborted: ${(ctx.signal.reason as Error).message}` : "closed without abort",
          );
        }
      },
    },
  ],
});

let h: Harness;
beforeAll(async () => {
  h = await start(cap);
});
afterAll(async () => {
  await h.stop();
});

async function waitForOutcome(id: string): Promise<string | undefined> {
  for (let i = 0; i < 200 && !outcomes.has(id); i++) await new Promise((r) => setTimeout(r, 10));
  return outcomes.get(id);
}

describe("the handler's AbortSignal", () => {
  it("fires when the client cancels an Invoke", async () => {
    const controller = new AbortController();
    const running = whenStarted("cancel");
    const call = h.client.invoke({ toolName: "wait", argsJson: json({ id: "cancel" }) }, { signal: controller.signal });
    await running;
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: Code.CANCELLED });
    expect(await waitForOutcome("cancel")).toBe("aborted: call cancelled by the client");
  });

  it("fires when the call's deadline passes", async () => {
    const call = h.client.invoke({ toolName: "wait", argsJson: json({ id: "deadline" }) }, { timeoutMs: 200 });
    const err = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe(Code.DEADLINE_EXCEEDED);
    expect(await waitForOutcome("deadline")).toMatch(/^aborted: /);
  });

  it("fires when the client stops reading a StreamInvoke", async () => {
    const running = whenStarted("stream");
    const controller = new AbortController();
    let ticks = 0;
    const reading = (async () => {
      for await (const _ of h.client.streamInvoke(
        { toolName: "wait", argsJson: json({ id: "stream" }) },
        { signal: controller.signal },
      ))
        ticks++;
    })();
    await running;
    while (ticks < 3) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    await reading.catch(() => undefined);
    expect(await waitForOutcome("stream")).toBe("aborted: call cancelled by the client");
  });
});
