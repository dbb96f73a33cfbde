import picomatch from "picomatch";
import { afterAll, describe, expect, it } from "vitest";
import { globTester } from "../src/policy/match.js";

// globTester runs picomatch's regex on RE2 after removing picomatch's dot-segment guards, which
// hold for every normalized path. This checks that it decides exactly as picomatch does, for the
// shipped policies' globs and the syntax docs/policy.md promises, over normalized paths.
const globs = [
  "/home/u/ws",
  "/home/u/ws/**",
  "/home/u/ws{,/**}",
  "**/.git/**",
  "**/.github/workflows/**",
  "**/.env",
  "**/.env.!(example|sample|template|dist)",
  "**/.npmrc",
  "**/.husky/**",
  "**/.gitlab-ci.yml",
  "~/notes/**",
  "**/*.{js,ts}",
  "src/**/*.test.ts",
  "/w/[abc]*.ts",
  "/w/[!a]*",
  "/w/?x",
  "/w/@(a|b)/**",
  "/w/+(a|b)",
  "/w/*(a|b)x",
  "/w/**/.*",
  "/w/**/.*/**",
  "**/.*",
  "*",
  "**",
  "/w/*/b",
  "**/a/**/b",
  "/home/u/.ssh/**",
  "/etc/**",
  "**/id_rsa*",
  "**/*.pem",
  "/w/{a,b}/**/c*",
  "/W/Src/**",
];
const names = [
  "a",
  "b",
  "c",
  "x",
  "ab",
  ".git",
  ".github",
  "workflows",
  ".env",
  ".env.example",
  ".env.local",
  ".npmrc",
  ".husky",
  "src",
  "util.test.ts",
  "a.ts",
  "b.js",
  ".hidden",
  "...",
  "..x",
  "id_rsa.pub",
  "key.pem",
  "SRC",
  "notes",
  "ci.yml",
];
const prefixes = ["/home/u/ws", "/home/u", "/w", "/W", "/etc", "/home/u/.ssh", "/tmp", "", "~"];

function paths(): string[] {
  const out = new Set<string>(["/", "/home/u/ws", "/w", "/etc/passwd"]);
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % n);
  for (const p of prefixes) for (const n of names) out.add(`${p}/${n}`);
  for (let i = 0; i < 4000; i++) {
    const depth = 1 + rand(5);
    let path = prefixes[rand(prefixes.length)] ?? "";
    for (let d = 0; d < depth; d++) path += `/${names[rand(names.length)]}`;
    out.add(path);
  }
  return [...out].filter((p) => p.startsWith("/"));
}

describe("path globs on RE2 decide as picomatch does", () => {
  const all = paths();
  let matched = 0;
  afterAll(() => {
    // The paths exercise the globs: a good share of them match something.
    expect(matched).toBeGreaterThan(1000);
  });
  it.each(globs)("%s", (glob) => {
    for (const options of [{ dot: true, nocase: true }, { dot: true }]) {
      const ours = globTester(glob, options);
      const theirs = picomatch(glob, { ...options, windows: false });
      const differ = all.filter((p) => ours(p) !== theirs(p));
      expect(differ, `${glob} ${JSON.stringify(options)}`).toEqual([]);
      matched += all.filter((p) => theirs(p)).length;
    }
  });
});
