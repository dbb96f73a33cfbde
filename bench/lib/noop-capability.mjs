// Child process of bench/engine.mjs: the no-op capability (capability SDK) in its own process, as
// capabilities are deployed. The Engine calls it, and so does the tool-call baseline, so both pay
// the same server. Sends its address over IPC; stops on disconnect.
import { defineCapability, serveCapability } from "@palisade/capability-sdk";

const server = await serveCapability(
  defineCapability({
    id: "noop",
    tools: [
      {
        name: "noop",
        description: "Does nothing.",
        inputSchema: { type: "object" },
        handler: async () => ({ ok: true }),
      },
    ],
  }),
  { port: 0, insecureDev: true, log: () => undefined },
);
process.send?.({ address: server.address });
process.on("disconnect", () => void server.close().then(() => process.exit(0)));
