// A tool call's proposal and verdict are committed to the audit trail before its capability is
// called: another process reading the database sees them while the call runs, so an Engine that
// crashes during the call cannot lose the record of a call that had an effect. A call whose
// entries cannot be written does not run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Store } from "@palisade/store";
import { DATABASE_FILE, openSqliteStore } from "../src/adapters/sqlite-store.js";
import { MemoryStore } from "../src/testing.js";
import type { AuditEntry, InvokeOutcome, ToolSpec } from "../src/ports.js";
import { FakeHost } from "./helpers/fake-host.js";
import { collect, startHarness } from "./helpers/setup.js";
import type { Harness } from "./helpers/setup.js";

let h: Harness | undefined;
let dir = "";
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

/** Records, at the moment each call reaches it, what a separate reader of the database sees in the audit trail. */
class AuditReadingHost extends FakeHost {
  readonly seenAtCall: string[][] = [];
  constructor(private readonly dbPath: string) {
    super();
  }

  override async invoke(
    tool: ToolSpec,
    args: unknown,
    opts: { sessionId: string; workspace: string; signal: AbortSignal },
  ): Promise<InvokeOutcome> {
    const reader = Store.open(this.dbPath, { readonly: true });
    try {
      this.seenAtCall.push(
        reader.listAudit({ sessionId: opts.sessionId, limit: 100 }).map((r) => `${r.kind}:${r.callId}`),
      );
    } finally {
      reader.close();
    }
    return super.invoke(tool, args, opts);
  }
}

class FailingAuditStore extends MemoryStore {
  override async appendAudit(_entries: AuditEntry[]): Promise<void> {
    throw new Error("disk full");
  }
}

describe("a tool call's audit entries", () => {
  it("are committed (visible to another connection) before the capability is called", async () => {
    dir = mkdtempSync(join(tmpdir(), "pal-audit-effect-"));
    const store = await openSqliteStore(dir);
    const host = new AuditReadingHost(join(dir, DATABASE_FILE));
    h = await startHarness({ store, host });
    const done = collect(h.client.sendMessage({ content: "echo" }));
    const p = await h.agent.next("process");
    await h.agent.propose(p.sessionId, p.messageId, "c1", "demo__echo", { text: "hi" });
    expect((await h.agent.next("toolResult")).isError).toBe(false);
    await h.agent.complete(p.sessionId, p.messageId, "done");
    await done;
    expect(host.seenAtCall).toEqual([["proposal:c1", "verdict:c1"]]);
  });

  it("that cannot be written keep the call from running, and the model is told", async () => {
    h = await startHarness({ store: new FailingAuditStore() });
    const done = collect(h.client.sendMessage({ content: "echo" }));
    const p = await h.agent.next("process");
    await h.agent.propose(p.sessionId, p.messageId, "c1", "demo__echo", { text: "hi" });
    const r = await h.agent.next("toolResult");
    expect(r.isError).toBe(true);
    expect(r.content).toMatch(/demo__echo did not run: the audit trail could not be written \(disk full\)/);
    expect(h.host.invocations).toEqual([]);
    await h.agent.complete(p.sessionId, p.messageId, "done");
    await done;
  });
});
