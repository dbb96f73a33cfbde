// What the Agent's process can see, as its mount namespace shows it: every mount point (with its
// file system and whether it is read-only), every unix socket on any file system but /proc, and
// the names and values of its environment. Needs reads of / (the test widens the permission
// model's grant: this is the wall that stays when a built-in gets past it).
const fs = require("node:fs");
const path = require("node:path");
const LIMIT = 50_000;
const mounts = [];
try {
  for (const line of fs.readFileSync("/proc/self/mountinfo", "utf8").trim().split("\n")) {
    const f = line.split(" ");
    const sep = f.indexOf("-");
    const unescape = (s) => s.replace(/\\(\d{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));
    mounts.push({ point: unescape(f[4]), fstype: f[sep + 1], ro: f[5].split(",").includes("ro") });
  }
} catch (e) {
  mounts.push({ error: e.code });
}
const sockets = [];
let seen = 0;
let truncated = false;
const walk = (dir) => {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (++seen > LIMIT) {
      truncated = true;
      return;
    }
    const p = path.join(dir, e.name);
    if (e.isSocket()) sockets.push(p);
    else if (e.isDirectory() && p !== "/proc" && p !== "/sys") walk(p);
  }
};
walk("/");
process.stdout.write(
  JSON.stringify({ mounts, sockets, truncated, env: process.env, pid: process.pid, cwd: process.cwd() }),
);
