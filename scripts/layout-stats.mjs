#!/usr/bin/env node
// Prints the layout of each workspace package from its own sources: hand-written files under src/
// (generated protobuf code left out), files loose at the top of src/, relative import arrows, the
// import floors (the longest chain of relative imports, each cycle counted as one floor) and the
// files caught in import cycles. Usage: node scripts/layout-stats.mjs [root] [--json]
// `--no-cycles` (run by `make lint`) prints only the cycles, and exits 1 when there is one: type
// imports count, as a cycle of types is still two files that cannot be read apart.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const args = process.argv.slice(2);
const json = args.includes("--json");
const noCycles = args.includes("--no-cycles");
const root = resolve(args.find((a) => !a.startsWith("--")) ?? ".");

function packageDirs() {
  const dirs = [];
  for (const parent of ["packages", "apps", "apps/capabilities"]) {
    const at = join(root, parent);
    if (!existsSync(at)) continue;
    for (const name of readdirSync(at).sort()) {
      const dir = join(at, name);
      if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "src"))) dirs.push(dir);
    }
  }
  return dirs;
}

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "gen" && entry.name !== "node_modules") out.push(...sourceFiles(path));
    } else if (/\.(ts|tsx|mts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;'"]*?from\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g;

function importsOf(file, known) {
  const text = readFileSync(file, "utf8");
  const found = new Set();
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2];
    const base = resolve(dirname(file), spec.replace(/\.(m?js|jsx)$/, ""));
    for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}.mts`, join(base, "index.ts")]) {
      if (known.has(candidate)) {
        found.add(candidate);
        break;
      }
    }
  }
  found.delete(file);
  return [...found];
}

/** Tarjan's strongly connected components, then the longest path over the condensed graph. */
function floors(nodes, edges) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const comp = new Map();
  const comps = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const members = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        comp.set(w, comps.length);
        members.push(w);
      } while (w !== v);
      comps.push(members);
    }
  };
  for (const v of nodes) if (!idx.has(v)) visit(v);
  // Tarjan emits components in reverse topological order: dependencies first.
  const depth = new Array(comps.length).fill(1);
  comps.forEach((members, c) => {
    for (const v of members)
      for (const w of edges.get(v)) if (comp.get(w) !== c) depth[c] = Math.max(depth[c], depth[comp.get(w)] + 1);
  });
  return {
    floors: comps.length ? Math.max(...depth) : 0,
    cycles: comps.filter((m) => m.length > 1),
  };
}

const rows = [];
for (const dir of packageDirs()) {
  const src = join(dir, "src");
  const files = sourceFiles(src);
  const known = new Set(files);
  const edges = new Map(files.map((f) => [f, importsOf(f, known)]));
  const arrows = [...edges.values()].reduce((n, e) => n + e.length, 0);
  const { floors: depth, cycles } = floors(files, edges);
  const loose = files.filter((f) => dirname(f) === src).length;
  const folders = new Set(files.map((f) => dirname(f)).filter((d) => d !== src)).size;
  const lines = files.map((f) => readFileSync(f, "utf8").split("\n").length).sort((a, b) => a - b);
  rows.push({
    package: relative(root, dir),
    files: files.length,
    loose,
    folders,
    arrows,
    floors: depth,
    inCycles: cycles.reduce((n, c) => n + c.length, 0),
    cycles: cycles.map((c) => c.map((f) => relative(src, f)).sort()),
    medianLines: lines.length ? lines[Math.floor(lines.length / 2)] : 0,
    maxLines: lines.at(-1) ?? 0,
  });
}

if (noCycles) {
  const found = rows.flatMap((r) => r.cycles.map((c) => `import cycle in ${r.package}/src: ${c.join(" <-> ")}`));
  for (const line of found) console.error(line);
  if (found.length > 0) {
    console.error(
      "break each cycle: move what both files need (often a type) into a file that imports neither (node scripts/layout-stats.mjs shows the layout)",
    );
    process.exit(1);
  }
} else if (json) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  const cols = ["package", "files", "loose", "folders", "arrows", "floors", "inCycles", "medianLines", "maxLines"];
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells) =>
    cells.map((v, i) => (i === 0 ? String(v).padEnd(width[i]) : String(v).padStart(width[i]))).join("  ");
  console.log(line(cols));
  for (const r of rows) console.log(line(cols.map((c) => r[c])));
  for (const r of rows) for (const c of r.cycles) console.log(`cycle in ${r.package}: ${c.join(" <-> ")}`);
}
