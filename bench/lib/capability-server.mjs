// SDK-built capability for bench/capabilities.mjs, in its own process; sends its address over IPC.
import { defineCapability, serveCapability } from "@palisade/capability-sdk";

const bytes = new Map();
const cap = defineCapability({
  id: "bench",
  tools: [
    {
      name: "echo",
      description: "Echo",
      inputSchema: { type: "object" },
      handler: async (args) => ({ echo: args.x ?? null }),
    },
    {
      name: "make",
      description: "Produce an artifact of `size` bytes",
      inputSchema: { type: "object", properties: { size: { type: "integer" } } },
      handler: async (args, ctx) => {
        const size = Number(args.size);
        let data = bytes.get(size);
        if (!data) bytes.set(size, (data = new Uint8Array(size).fill(7)));
        return {
          ok: true,
          ...ctx.artifacts.storeOutput(data, { filename: "bench.bin", mimeType: "application/octet-stream" }),
        };
      },
    },
    {
      name: "consume",
      description: "Size of the attachments",
      inputSchema: { type: "object", properties: { attachments: { type: "array" } } },
      handler: async (args, ctx) => ({
        sizes: (args.attachments ?? []).map(
          (a) => ctx.artifacts.getInput(a.capability_artifact_id)?.data.byteLength ?? -1,
        ),
      }),
    },
  ],
});
const server = await serveCapability(cap, { port: 0, insecureDev: true, log: () => undefined });
process.send?.({ address: server.address });
process.on("disconnect", () => void server.close().then(() => process.exit(0)));
