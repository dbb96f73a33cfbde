import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The Shield reads every byte the model sends on the Engine's thread: no argument may make it
// super-linear. 100 KB of one repeated unit (characters the detectors' patterns care about) in
// each kind of tool; every evaluation must answer. It runs in a child with a deadline, so a
// regression fails here instead of hanging the test run. (`^\s*#{2,}...$` with /m took 38-73 s on
// 200 KB of newlines: quadratic.)
const shieldDist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const UNITS = [
  "a",
  "a ",
  "/a",
  "a/",
  "\n",
  "\n#",
  " \n",
  "\r\n",
  "\t",
  "#",
  "## ",
  "\n\n ",
  "a\n",
  ":",
  "<",
  "<|",
  "0",
  "1.",
  "%",
  "%2",
  "&#",
  "+",
  "*",
  "?",
  "!",
  "(",
  ")",
  ";",
  ",",
  "~",
  "//",
  "/*",
  "<!--",
  "&&",
  "||",
  ">",
  "2>",
  "$",
  "${",
  "$(",
  "`",
  "'",
  '"',
  "\\",
  "..",
  "@",
  "x@",
  "#!",
  "http://",
  "ssh ",
  "rm -rf ",
  "eval ",
  "curl ",
  "| sh ",
  "base64 ",
  "ignore previous ",
  "x=",
  "a b c ",
  "\u200b",
  "\u00ad",
  "é",
  "{",
  "[",
  "a.",
  "-",
  "=",
  "sk-",
  "AKIA",
];

describe("the Shield is linear in the size of what the model sends", () => {
  it("100 KB of each repeated unit, in a shell command, a file's content, a path, a URL and a mail body", () => {
    const script = `import { createShield, loadPolicy } from ${JSON.stringify(shieldDist)};
      const s = createShield({ policy: await loadPolicy("default"), home: "/home/u", workspace: "/home/u/ws", cache: false, rateLimitPerMinute: 0 });
      const units = ${JSON.stringify(UNITS)};
      const tools = [["shell__execute_command", "command", {}], ["files__write_file", "content", { path: "a.txt" }], ["files__read_file", "path", {}], ["http__http_request", "url", {}], ["mail__send_email", "body", { to: "a@example.com", subject: "x" }]];
      let worst = { ms: 0 };
      for (const u of units) for (const [tool, key, extra] of tools) {
        const t = performance.now();
        s.evaluateSync({ tool, args: { ...extra, [key]: u.repeat(Math.floor(100000 / u.length)) } });
        const ms = performance.now() - t;
        if (ms > worst.ms) worst = { ms, tool, unit: u };
      }
      console.log(JSON.stringify(worst));`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 90_000 });
    expect(r.status, `the Shield did not answer every evaluation within 90 s (signal ${r.signal}): ${r.stderr}`).toBe(
      0,
    );
    const worst = JSON.parse(r.stdout) as { ms: number; tool: string; unit: string };
    // Linear work on 100 KB takes milliseconds; a quadratic pattern takes tens of seconds.
    expect(worst.ms, JSON.stringify(worst)).toBeLessThan(10_000);
  });
});
