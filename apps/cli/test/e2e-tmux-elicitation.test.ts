import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { E2E_TEST_TIMEOUT_MS, Terminal, hasTmux, repoRoot } from "./tmux.js";
import { messageText, startScriptedServer } from "@palisade/testing";
import type { ChatRequest, ScriptedReply, ScriptedServer } from "@palisade/testing";

/**
 * An MCP server asks the chat's user during a tool call (elicitation, form mode), end to end: the
 * real `palisade chat` (compiled dist/) in tmux, the real Engine, Agent and Shield, a scripted
 * model that calls `trigger-elicitation-request` of the reference server
 * `@modelcontextprotocol/server-everything`, unmodified, in its sandbox. Its form has a required
 * field without a default; the user fills it in the chat and the server's answer, what it
 * received, comes back to the model. Needs `make build` and tmux.
 */
const main = join(repoRoot, "apps/cli/dist/main.js");
const require = createRequire(join(repoRoot, "packages", "capabilities", "package.json"));
const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
const TOOL = "everything__trigger-elicitation-request";

const session = `palisade-elicit-${process.pid}`;
const term = new Terminal(session, undefined, 300);
const keys = (...k: string[]): void => term.keys(...k);
const inTurn = { inTurn: true };

/** One key, then the screen it led to. */
async function key(k: string): Promise<string> {
  const before = term.screen();
  keys(k);
  return (await term.changedFrom(before)).join("\n");
}

function reply(req: ChatRequest): ScriptedReply {
  const lastUser = req.messages.map((m) => m.role).lastIndexOf("user");
  const since = req.messages.slice(lastUser + 1);
  const callId = since.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === TOOL)?.id;
  const result = since.find((m) => m.role === "tool" && callId !== undefined && m.tool_call_id === callId);
  if (result) return { content: `The server says: ${messageText(result).replace(/\s+/g, " ").slice(0, 400)}` };
  if ((req.tools ?? []).some((t) => t.function.name === TOOL)) return { toolCalls: [{ name: TOOL, arguments: {} }] };
  if (!since.some((m) => m.tool_calls?.some((c) => c.function.name === "load_tools")))
    return { toolCalls: [{ name: "load_tools", arguments: { groups: ["everything"] } }] };
  return { content: `no ${TOOL} was offered` };
}

describe.skipIf(!hasTmux || !existsSync(main))(
  "palisade chat in tmux: an MCP server's form (elicitation) filled by the user (real Engine, server-everything)",
  () => {
    let dir: string;
    let model: ScriptedServer;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "pal-elicit-"));
      const ws = join(dir, "ws");
      mkdirSync(ws);
      model = await startScriptedServer({ fallback: reply, tokenDelayMs: 1 });
      writeFileSync(
        join(dir, "config.yaml"),
        [
          "model:",
          `  base_url: ${model.baseURL}`,
          "  name: scripted-elicit",
          "capabilities:",
          "  - { id: http, enabled: false }",
          "  - { id: mail, enabled: false }",
          "  - id: everything",
          "    mcp:",
          `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(EVERYTHING)}, stdio]`,
          // The call itself is allowed: what is asked here is the server's question, not the call.
          "      policy: { trigger-elicitation-request: allow }",
          "limits:",
          "  approval_timeout_s: 300",
        ].join("\n"),
      );
      // `env -u CI`: CI=1 makes ink skip intermediate frames; a person's terminal has no CI.
      const chat = `env -u CI node ${main} --data-dir ${join(dir, "data")} --config ${join(dir, "config.yaml")} chat; echo CHAT-EXITED rc=$?; sleep 120`;
      term.tmux("new-session", "-d", "-s", session, "-x", "130", "-y", "50", "-c", ws, chat);
      await term.waitForPane("● connected");
    }, E2E_TEST_TIMEOUT_MS);

    afterAll(async () => {
      try {
        term.tmux("kill-session", "-t", session);
      } catch {
        // already gone
      }
      try {
        execFileSync(process.execPath, [main, "--data-dir", join(dir, "data"), "engine", "stop"], { stdio: "ignore" });
      } catch {
        // not running
      }
      await model?.close();
      rmSync(dir, { recursive: true, force: true });
    }, E2E_TEST_TIMEOUT_MS);

    it(
      "the form shows the server's words and every field; a required field must be filled, a range is checked, and the server receives the values",
      async () => {
        keys("fill in the server's form", "Enter");
        const form = await term.waitForPane("MCP server everything asks you", inTurn);
        expect(form).toContain(`during ${TOOL}, in its own words, not checked by Palisade:`);
        expect(form).toContain("Please provide inputs for the following fields:");
        // every field of its schema, the required one marked, defaults filled in
        for (const title of ["String *", "Boolean", "String with email format", "Integer", "Titled Single Select Enum"])
          expect(form).toContain(title);
        expect(form).toContain("It was a dark and stormy night.");
        expect(form).toContain("Superman");
        expect(form).toMatch(/\[x\] Guitar/);

        // Accept with the required name empty: refused here, with what is missing
        for (let i = 0; i < 13; i++) await key("Enter");
        let p = await key("Enter");
        expect(p).toContain("String is required");
        expect(p).toContain("MCP server everything asks you");

        // the focus went back to the name: fill it; agree to the terms; an integer out of range is shown
        await key("Ada Lovelace");
        await key("Down");
        p = await key("Space");
        expect(p).toContain("(x) yes");
        for (let i = 0; i < 5; i++) await key("Down");
        await key("BSpace");
        await key("BSpace");
        p = await key("500");
        expect(p).toContain("Integer must be at most 100");
        await key("BSpace");
        await key("BSpace");
        for (let i = 6; i < 13; i++) await key("Down");
        keys("Enter");

        // what the server received, as its tool result, reached the model
        const done = await term.waitForPane("The server says:", inTurn);
        await term.waitIdle();
        expect(done).not.toContain("MCP server everything asks you");
        const toModel = model
          .chatRequests()
          .flatMap((r) => r.messages)
          .filter((m) => m.role === "tool")
          .map((m) => messageText(m))
          .join("\n");
        expect(toModel).toContain("User provided the requested information");
        expect(toModel).toContain("- Name: Ada Lovelace");
        expect(toModel).toContain("- Agreed to terms: true");
        expect(toModel).toContain("- Favorite Integer: 5");
        expect(toModel).toContain("Guitar");
      },
      E2E_TEST_TIMEOUT_MS,
    );

    it(
      "Decline says no to the server",
      async () => {
        keys("fill in the server's form again", "Enter");
        await term.waitForPane(/MCP server everything asks you[\s\S]*String \*/, inTurn);
        for (let i = 0; i < 14; i++) await key("Down");
        keys("Enter");
        await term.waitForPane(/The server says: .*User declined/, inTurn);
        await term.waitIdle();
      },
      E2E_TEST_TIMEOUT_MS,
    );
  },
);
