// `capability credentials set` in a real terminal (tmux): the value is typed at a prompt that does
// not echo it, and it is stored.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const BIN = join(ROOT, "bin", "palisade");
const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
const dir = mkdtempSync(join(tmpdir(), "pal-cred-tty-"));
const session = `pal-cred-${String(process.pid)}`;
afterAll(() => {
  spawnSync("tmux", ["kill-session", "-t", session]);
  rmSync(dir, { recursive: true, force: true });
});

const screen = (): string => execFileSync("tmux", ["capture-pane", "-p", "-t", session], { encoding: "utf8" });

async function until(what: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error(`timed out; the screen:\n${screen()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!hasTmux)("capability credentials set in a terminal", () => {
  it("prompts without echo and stores what was typed", async () => {
    const data = join(dir, "data");
    const cmd = `${BIN} capability credentials set mail APP_PASSWORD --user alice --data-dir ${data}; echo EXIT=$?; sleep 30`;
    execFileSync("tmux", ["new-session", "-d", "-s", session, "-x", "120", "-y", "20", cmd]);
    await until(() => screen().includes("(not shown):"), 20_000);
    execFileSync("tmux", ["send-keys", "-t", session, "-l", "typed-s3cret-value"]);
    execFileSync("tmux", ["send-keys", "-t", session, "Enter"]);
    await until(() => screen().includes("EXIT="), 20_000);
    const shown = screen();
    expect(shown).toContain("EXIT=0");
    expect(shown).toContain('stored mail APP_PASSWORD for user "alice"');
    expect(shown).not.toContain("typed-s3cret-value");
    const stored = JSON.parse(readFileSync(join(data, "credentials.json"), "utf8")) as {
      users: Record<string, Record<string, Record<string, string>>>;
    };
    expect(stored.users.alice?.mail?.APP_PASSWORD).toBe("typed-s3cret-value");
  });
});
