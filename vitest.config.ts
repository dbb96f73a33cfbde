import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // Workspace packages resolve to their TypeScript sources in tests (see package.json "source").
  ssr: { resolve: { conditions: ["source"] } },
  resolve: { conditions: ["source"] },
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/**/test/**/*.test.{ts,tsx}", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // vitest's default (cores - 1) runs one file at a time on a 2-core machine, where most test
    // files spend their time waiting on the processes they start: two at a time there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // HOME and XDG dirs point at a temporary home; the real one is checked unchanged after the run
    globalSetup: ["test/setup/home-guard.mjs"],
    // eventsource and eventsource-parser (under the MCP SDKs) also export a "source" condition
    // pointing at TypeScript, which Node will not load from node_modules: Vite transforms them.
    server: { deps: { inline: [/@modelcontextprotocol\/(sdk|client|core)/, "eventsource-parser", "eventsource"] } },
  },
});
