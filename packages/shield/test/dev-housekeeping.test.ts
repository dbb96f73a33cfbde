// Everyday commands of the default policy that ran into the per-tool "ask" or the SSRF detector
// although they stay in the workspace: deleting one file of build output, stopping the shell's own
// background job, making a random secret or a key pair for the project, and a plain GET of the
// local development server. Each class is checked next to the variants that must still stop.
import { describe, expect, it } from "vitest";
import { check, sh } from "./helpers.js";

const decide = async (command: string): Promise<string> =>
  (await check("shell__execute_command", sh(command))).decision;

describe("default policy: workspace housekeeping runs", () => {
  it.each([
    "rm -f build/app.js.map",
    "rm -f dist/index.d.ts",
    "rm -f target/debug/app",
    "rm -f .next/trace",
    "kill %2",
    "kill %%",
    "jobs -l",
    "openssl rand -base64 24",
    "openssl rand -hex 16 > .secret-seed",
    "ssh-keygen -t rsa -b 4096 -f keys/ci_key -N ''",
    "ssh-keygen -t ecdsa -f ./fixtures/host_key -q -N ''",
  ])("%s is allowed", async (command) => {
    expect(await decide(command)).toBe("allow");
  });

  it.each([
    ["rm -f dist/x ../../.bashrc", "block"],
    ["rm -f coverage/x /home/dev/notes.txt", "escalate"],
    ["rm -f src/index.ts", "escalate"],
    ["kill 1234", "escalate"],
    ["kill %1 1", "escalate"],
    ["kill % 1", "escalate"],
    ["kill %1 && kill -9 -1", "block"],
    ["openssl rand -out /home/dev/.ssh/authorized_keys 32", "block"],
    ["openssl rand -hex 32 > /home/dev/.profile", "block"],
    ["ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519 -N ''", "block"],
    ["ssh-keygen -t ed25519 -N '' -f ../other/key", "escalate"],
    ["ssh-keygen -t ed25519", "escalate"],
  ])("%s is not allowed (%s)", async (command, want) => {
    expect(await decide(command)).toBe(want);
  });
});

describe("default policy: a GET of the local development server runs", () => {
  it.each([
    "curl -s http://localhost:3000/health",
    "curl -s http://127.0.0.1:5173/ | head",
    "curl -sI http://localhost:8000/admin/login/",
    "wget -qO- http://localhost:4200/main.js",
  ])("%s is allowed", async (command) => {
    expect(await decide(command)).toBe("allow");
  });

  it.each([
    // other local services: admin APIs and secrets behind loopback
    "curl http://localhost:2375/containers/json",
    "curl http://localhost:8080/actuator/env",
    "curl http://127.0.0.1:8500/v1/kv/?recurse",
    "curl http://localhost:3000/ http://localhost:6379/",
    // sending, not reading
    "curl -X POST http://localhost:3000/admin/reset",
    "curl -sd x=1 http://localhost:3000/",
    "curl --json '{}' http://localhost:3000/api",
    "curl -K ./curlrc http://localhost:3000/",
    "wget --post-data=a=1 http://localhost:5000/",
    "sudo curl http://localhost:3000/",
    // a private address is not loopback
    "curl http://10.0.0.5:3000/",
  ])("%s is not allowed", async (command) => {
    expect(await decide(command)).not.toBe("allow");
  });

  it("an HTTP tool's request to the dev server stays blocked (tool URLs are server-side)", async () => {
    const v = await check("http__http_request", { method: "GET", url: "http://localhost:3000/health" });
    expect(v.decision).toBe("block");
    expect(v.rules).toContain("ssrf.internal");
  });
});
