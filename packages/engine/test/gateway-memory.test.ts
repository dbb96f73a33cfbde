// Memory the model gateway holds for request bodies that never finish: eight connections each
// sending 30 MiB without an end. Measured in this process (the gateway runs here) after a full
// GC: what is held while the connections stay open, and what is left after they end.
import { connect } from "node:net";
import type { Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { reply, startScriptedServer } from "@palisade/testing";
import { CREDENTIAL, rig } from "./gateway-rig.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const MiB = 1024 * 1024;

function held(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Sends a chunked body of `mib` MiB without its terminator; resolves once every write settled (sent or refused). */
function unfinishedBody(path: string, mib: number, chunk: Buffer): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.on("error", () => undefined);
    socket.once("connect", () => {
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CREDENTIAL}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      let pending = mib;
      const settled = (): void => {
        if (--pending === 0) resolve(socket);
      };
      for (let i = 0; i < mib; i++) {
        if (socket.destroyed) {
          settled();
          continue;
        }
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        socket.write("\r\n", settled);
      }
    });
    socket.once("close", () => resolve(socket));
  });
}

describe("model gateway: memory for unfinished bodies", () => {
  it("8 unfinished 30 MiB bodies hold a few MiB at most, and the memory is returned when they end", async () => {
    const { gateway, model } = await rig(await startScriptedServer({ fallback: reply.text("ok") }));
    const chunk = Buffer.alloc(MiB, 0x20);
    const before = held();
    const sockets = await Promise.all(Array.from({ length: 8 }, () => unfinishedBody(gateway.path, 30, chunk)));
    await new Promise((r) => setTimeout(r, 200));
    const whileOpen = held() - before;
    for (const s of sockets) s.destroy();
    await new Promise((r) => setTimeout(r, 200));
    const after = held() - before;
    expect(model.requests).toHaveLength(0);
    console.log(
      `gateway memory: held while open ${(whileOpen / MiB).toFixed(1)} MiB, after ${(after / MiB).toFixed(1)} MiB`,
    );
    expect(whileOpen / MiB, `held while open: ${(whileOpen / MiB).toFixed(1)} MiB`).toBeLessThan(48);
    expect(after / MiB, `held after the connections ended: ${(after / MiB).toFixed(1)} MiB`).toBeLessThan(16);
  }, 60_000);
});
