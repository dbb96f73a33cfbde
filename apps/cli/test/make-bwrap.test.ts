// `make run` (and `make deps-system`) on a machine without bubblewrap: where apt-get exists it is
// asked to install it, and whenever bwrap is still missing afterwards the user is told so, with
// what stops working and how to fix it. The machine is made with a private mount namespace whose
// /usr/bin lacks bwrap (test/setup/without-bwrap.sh): root and unshare are needed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");
const canHide =
  process.getuid?.() === 0 &&
  spawnSync("unshare", ["-m", "true"]).status === 0 &&
  spawnSync("sh", ["-c", "command -v bwrap"]).status === 0;
const dir = mkdtempSync(join(tmpdir(), "palisade-no-bwrap-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function withoutBwrap(hideApt: boolean, command: string): { out: string; code: number | null } {
  const farm = mkdtempSync(join(dir, "farm-"));
  const r = spawnSync("unshare", ["-m", join(root, "test/setup/without-bwrap.sh"), "bash", "-c", command], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, FARM: farm, HIDE_APT: hideApt ? "1" : "0" },
    timeout: 120_000,
  });
  return { out: `${r.stdout}${r.stderr}`, code: r.status };
}

const NOTE =
  /note: bubblewrap \(bwrap\) is not installed and (apt-get could not install it|there is no apt-get to install it): the tool sandboxes cannot start, so the files and shell tools are unavailable .*Install it \(apt-get install bubblewrap, dnf install bubblewrap\)/;

describe.skipIf(!canHide)("make on a machine without bubblewrap", () => {
  it("the namespace has no bwrap", () => {
    expect(withoutBwrap(false, "command -v bwrap || echo none").out.trim()).toBe("none");
  });

  it("with apt-get: it is asked to install bubblewrap; bwrap still missing after it, the user is told", () => {
    const r = withoutBwrap(false, "make -s deps-system");
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain("installing bubblewrap (apt-get install bubblewrap) ...");
    expect(r.out).toMatch(NOTE);
    expect(r.out).toContain("apt-get could not install it");
  }, 150_000);

  it("without apt-get: the user is told why and how to fix it", () => {
    const r = withoutBwrap(true, "make -s deps-system");
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toContain("installing bubblewrap");
    expect(r.out).toMatch(NOTE);
    expect(r.out).toContain("there is no apt-get to install it");
  }, 150_000);
});
