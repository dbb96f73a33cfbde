/**
 * The first process inside a sandbox that has relays: it starts them, then runs the command
 * and exits with its status. Arguments:
 *   --tcp-to-unix PORT:/socket   listen on 127.0.0.1:PORT (the sandbox's own loopback) and
 *                                relay each connection to the unix socket (the egress proxy)
 *   --unix-to-tcp /socket:PORT   listen on the unix socket (reached by the Engine from outside)
 *                                and relay each connection to 127.0.0.1:PORT inside
 *   -- command args...
 */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import type { Server, Socket } from "node:net";

interface Relay {
  listen: number | string;
  to: number | string;
}

function parse(argv: string[]): { relays: Relay[]; command: string[] } {
  const relays: Relay[] = [];
  let i = 0;
  for (; i < argv.length && argv[i] !== "--"; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1] ?? "";
    if (flag === "--tcp-to-unix") {
      const at = value.indexOf(":");
      relays.push({ listen: Number(value.slice(0, at)), to: value.slice(at + 1) });
    } else if (flag === "--unix-to-tcp") {
      const at = value.lastIndexOf(":");
      relays.push({ listen: value.slice(0, at), to: Number(value.slice(at + 1)) });
    } else throw new Error(`sandbox init: unknown argument ${String(flag)}`);
  }
  return { relays, command: argv.slice(i + 1) };
}

function pipeBoth(a: Socket, b: Socket): void {
  const end = (): void => {
    a.destroy();
    b.destroy();
  };
  a.on("error", end).on("close", end);
  b.on("error", end).on("close", end);
  a.pipe(b);
  b.pipe(a);
}

function startRelay(relay: Relay): Promise<Server> {
  const server = createServer((inbound) => {
    const outbound = typeof relay.to === "number" ? connect(relay.to, "127.0.0.1") : connect(relay.to);
    pipeBoth(inbound, outbound);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    if (typeof relay.listen === "number") server.listen(relay.listen, "127.0.0.1", () => resolve(server));
    else {
      rmSync(relay.listen, { force: true });
      server.listen(relay.listen, () => resolve(server));
    }
  });
}

const { relays, command } = parse(process.argv.slice(2));
const servers = await Promise.all(relays.map(startRelay));
for (const s of servers) s.unref();
const [cmd = "", ...args] = command;
const child = spawn(cmd, args, { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(sig, () => child.kill(sig));
child.on("error", (err) => {
  process.stderr.write(`sandbox init: could not start ${cmd}: ${err.message}\n`);
  process.exit(127);
});
child.on("exit", (code, signal) =>
  process.exit(code ?? 128 + (signal === "SIGKILL" ? 9 : signal === "SIGTERM" ? 15 : 1)),
);
