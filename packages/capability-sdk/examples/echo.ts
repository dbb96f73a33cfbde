/**
 * A minimal capability. The Engine launches it with `protocol: palisade` (a unix socket and a
 * per-launch secret); standalone, for development only, it runs without authentication:
 * `PORT=0 node --conditions=source --import tsx examples/echo.ts --insecure-dev`.
 * It prints `capability echo listening on <address>` to stderr and stops gracefully on SIGTERM.
 */
import { ToolError, defineCapability, serveCapability } from "@palisade/capability-sdk";

const echo = defineCapability({
  id: "echo",
  tools: [
    {
      name: "echo",
      description: "Returns the text it is given.",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
        additionalProperties: false,
      },
      handler: async (args: { text: string }) => ({ text: args.text }),
      async *stream(args: { text: string }) {
        for (const word of args.text.split(" ")) yield `${word}\n`;
      },
    },
    {
      name: "sleep",
      description: "Waits `ms` milliseconds, then answers; stops early when the call is cancelled.",
      inputSchema: {
        type: "object",
        properties: { ms: { type: "integer", minimum: 0, maximum: 60000 } },
        required: ["ms"],
      },
      handler: async (args: { ms: number }, ctx) => {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, args.ms);
          ctx.signal.addEventListener("abort", () => {
            clearTimeout(timer);
            reject(new ToolError("sleep cancelled"));
          });
        });
        return { slept: args.ms };
      },
    },
    {
      name: "make_file",
      description: "Stores `text` as an output artifact called `filename`.",
      inputSchema: {
        type: "object",
        properties: { filename: { type: "string", minLength: 1 }, text: { type: "string" } },
        required: ["filename", "text"],
      },
      handler: async (args: { filename: string; text: string }, ctx) =>
        ctx.artifacts.storeOutput(new TextEncoder().encode(args.text), {
          filename: args.filename,
          mimeType: "text/plain",
        }),
    },
  ],
});

await serveCapability(echo, { handleSignals: true });
