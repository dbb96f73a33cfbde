// bin/palisade, the shell entry point: which Node it runs the CLI with and what it says when the
// checkout is not built. Run against a copy of the script in a scratch checkout whose `node`
// binaries and scripts/node-bin.sh are stand-ins that say who ran.
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");

function executable(file: string, text: string): void {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

/** A `node` that prints which one it is and its arguments. */
function fakeNode(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  executable(join(dir, "node"), `#!/bin/sh\necho "${name}: $*"\necho "PALISADE_PROG=$PALISADE_PROG"\n`);
  return dir;
}

describe("bin/palisade", () => {
  let root: string;
  let checkout: string;
  let viaScript: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "pal-bin-"));
    checkout = join(root, "checkout");
    mkdirSync(join(checkout, "bin"), { recursive: true });
    mkdirSync(join(checkout, "scripts"));
    copyFileSync(join(repo, "bin", "palisade"), join(checkout, "bin", "palisade"));
    // scripts/node-bin.sh as `make` would run it: here it names a node of its own.
    viaScript = fakeNode(join(root, "picked-by-node-bin-sh"), "node-bin.sh's node");
    executable(join(checkout, "scripts", "node-bin.sh"), `#!/bin/sh\necho ${viaScript}\n`);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const run = (...args: string[]): { code: number | null; out: string; err: string } => {
    const r = spawnSync(join(checkout, "bin", "palisade"), args, {
      encoding: "utf8",
      cwd: root,
      env: { PATH: process.env.PATH ?? "", HOME: root },
    });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  /** What `make build` leaves: dist/main.js, the install stamp of `abi`, the record of its Node. */
  const build = (nodeDir: string, abi = "137", stamp = abi): string => {
    mkdirSync(join(checkout, "apps", "cli", "dist"), { recursive: true });
    writeFileSync(join(checkout, "apps", "cli", "dist", "main.js"), "");
    mkdirSync(join(checkout, "node_modules"), { recursive: true });
    writeFileSync(join(checkout, "node_modules", `.install-stamp-${stamp}`), "");
    const record = join(checkout, "apps", "cli", "dist", "built-with-node");
    writeFileSync(record, `${nodeDir}\n${abi}\n`);
    return record;
  };
  const main = (): string => join(checkout, "apps", "cli", "dist", "main.js");

  it("says how to build when the checkout is not built", () => {
    const r = run("--version");
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe(`palisade is not built yet: run 'make build' (or 'make run') in ${checkout}\n`);
  });

  it("runs the CLI with the Node recorded by the build, without asking scripts/node-bin.sh", () => {
    const built = fakeNode(join(root, "built-with"), "the build's node");
    build(built);
    const r = run("sessions", "list");
    expect(r.code).toBe(0);
    expect(r.out).toContain(`the build's node: ${main()} sessions list\n`);
  });

  it("falls back to scripts/node-bin.sh when the recorded Node is gone", () => {
    build(join(root, "removed"));
    expect(run("--version").out).toContain(`node-bin.sh's node: ${main()} --version\n`);
  });

  it("falls back when the recorded Node was replaced after the build", () => {
    const built = fakeNode(join(root, "built-with"), "the build's node");
    const record = build(built);
    const past = new Date(Date.now() - 60_000);
    utimesSync(record, past, past);
    expect(run("--version").out).toContain(`node-bin.sh's node: ${main()} --version\n`);
  });

  it("falls back when node_modules is not installed for the recorded Node's ABI", () => {
    const built = fakeNode(join(root, "built-with"), "the build's node");
    build(built, "137", "127");
    expect(run("--version").out).toContain(`node-bin.sh's node: ${main()} --version\n`);
  });

  it("falls back on an empty or truncated record", () => {
    const built = fakeNode(join(root, "built-with"), "the build's node");
    const record = build(built);
    writeFileSync(record, `${built}`);
    expect(run("--version").out).toContain(`node-bin.sh's node: ${main()} --version\n`);
    writeFileSync(record, "");
    expect(run("--version").out).toContain(`node-bin.sh's node: ${main()} --version\n`);
  });

  it("names itself in hints as typed: its path, or `palisade` when found on PATH (also through a symlink)", () => {
    build(fakeNode(join(root, "built-with"), "the build's node"));
    expect(run().out).toContain(`PALISADE_PROG=${join(checkout, "bin", "palisade")}\n`);
    const onPath = join(root, "on-path");
    mkdirSync(onPath);
    symlinkSync(join(checkout, "bin", "palisade"), join(onPath, "palisade"));
    const out = execFileSync("palisade", [], {
      encoding: "utf8",
      cwd: root,
      env: { PATH: `${onPath}:${process.env.PATH ?? ""}`, HOME: root },
    });
    expect(out).toContain(`the build's node: ${main()}\n`);
    expect(out).toContain("PALISADE_PROG=palisade\n");
  });
});
