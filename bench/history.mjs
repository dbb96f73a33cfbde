#!/usr/bin/env node
// Session history at scale: generate N messages in M sessions through the Store API,
// then measure search, session listing, opening a session's last 200 messages and appends under
// concurrent search. Baselines (raw better-sqlite3 statements on the same file) run in the same
// process and are reported as ratios. Then PostgreSQL beside SQLite, in the same run: the history
// is copied into a private cluster (fsync on) and both answer the same queries, list, open and
// durable turn commits, interleaved (bench/lib/history-postgres.mjs; --no-postgres skips it).
// Usage:
//   node bench/history.mjs [--messages 1000000] [--sessions 10000] [--quick] [--db FILE] [--keep] [--reuse] [--no-postgres]
// Generating a million messages takes ~12 minutes: generate once with `--db /tmp/h-1m.db`, then
// `--db /tmp/h-1m.db --reuse` measures that file again (an older schema is migrated on open;
// each run appends a few hundred turns to it). `make bench ARGS="history --db /tmp/h-1m.db --reuse"`.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";
import { Store } from "../packages/store/dist/index.js";
import { compareWithPostgres, postgresMissing } from "./lib/history-postgres.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const quick = flag("quick");
const MESSAGES = Number(opt("messages", quick ? 100_000 : 1_000_000));
const SESSIONS = Number(opt("sessions", quick ? 1_000 : 10_000));
const dir = mkdtempSync(join(tmpdir(), "palisade-bench-history-"));
const DB = opt("db", join(dir, "history.db"));

// --- deterministic text -------------------------------------------------------------------------
let seed = 0x9e3779b9;
const rand = () => {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 0x100000000;
};
const pick = (a) => a[Math.floor(rand() * a.length)];
const REAL = (
  "deploy billing service cluster staging production database migration schema index query latency error " +
  "timeout retry config yaml json kubernetes docker container image build test coverage release branch merge commit " +
  "review bug crash memory leak cpu disk network request response header token auth login password secret key cert " +
  "report summary invoice customer order payment refund email calendar meeting agenda notes draft document pdf table " +
  "chart metric alert dashboard log trace span backup restore snapshot volume file folder path permission user group"
).split(" ");
const SYL = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ru",
  "sa",
  "to",
  "vi",
  "ze",
  "po",
  "qua",
  "dri",
  "sto",
  "fen",
  "gul",
  "har",
  "jin",
  "bex",
];
const VOCAB = [...REAL];
while (VOCAB.length < 20_000) VOCAB.push(pick(SYL) + pick(SYL) + pick(SYL) + (rand() < 0.5 ? pick(SYL) : ""));
// Zipf-like: word rank r has weight 1/(r+1); sample by inverse CDF on a precomputed table.
const CDF = [];
{
  let acc = 0;
  for (let r = 0; r < VOCAB.length; r++) {
    acc += 1 / (r + 1);
    CDF.push(acc);
  }
  for (let r = 0; r < CDF.length; r++) CDF[r] /= acc;
}
const zipfWord = () => {
  const x = rand();
  let lo = 0,
    hi = CDF.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CDF[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo];
};
const sentence = (min, max) => Array.from({ length: min + Math.floor(rand() * (max - min)) }, zipfWord).join(" ");
const TOOLS = [
  "files__read_file",
  "files__write_file",
  "shell__run",
  "http__fetch",
  "documents__create",
  "search__web",
];
const DECISIONS = ["allow", "allow", "allow", "allow", "block", "escalate"];

// --- helpers -------------------------------------------------------------------------------------
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
// Wall time, and the CPU time of this process alongside (a loaded machine stretches wall time while
// the CPU time of the work stays put): cpu[label] collects the latter.
const cpu = {};
const time = (fn, label) => {
  const c = process.cpuUsage();
  const t = performance.now();
  fn();
  const wall = performance.now() - t;
  if (label !== undefined) {
    const d = process.cpuUsage(c);
    (cpu[label] ??= []).push((d.user + d.system) / 1000);
  }
  return wall;
};
const ms = (x) => Math.round(x * 1000) / 1000;
const log = (...a) => console.error(...a);

// --- 1. generation (--reuse: keep the database of an earlier --keep run) ----------------------------
const reuse = flag("reuse") && existsSync(DB);
if (!reuse) rmSync(DB, { force: true });
let store = Store.open(DB, { synchronous: "normal" });
// Session sizes vary (most short, some long) around MESSAGES / SESSIONS.
const sizes = Array.from({ length: SESSIONS }, () => 0.2 + rand() * rand() * 4);
const scale = MESSAGES / sizes.reduce((a, b) => a + b, 0);
const targets = sizes.map((s) => Math.max(2, Math.round(s * scale)));
let written = 0,
  toolCalls = 0;
const t0 = performance.now();
const start = Date.UTC(2026, 0, 1);
const span = 300 * 86_400_000;
const BATCH = 5000;
let batch = [];
const flush = () => {
  store.transaction(() => {
    for (const f of batch) f();
  });
  batch = [];
};
for (let s = 0; s < SESSIONS && written < MESSAGES && !reuse; s++) {
  const sid = `s${s}`;
  const created = start + Math.floor((s / SESSIONS) * span);
  const n = Math.min(targets[s], MESSAGES - written);
  batch.push(() =>
    store.createSession({
      id: sid,
      title: sentence(2, 6),
      titleSource: "auto",
      createdAt: created,
      model: "bench",
      workspace: "/w",
    }),
  );
  for (let i = 0; i < n; i++) {
    const at = created + i * 30_000;
    const role = i % 2 === 0 ? "user" : "assistant";
    const content = role === "user" ? sentence(5, 30) : sentence(15, 120);
    const withTool = role === "assistant" && rand() < 0.3;
    const k = written + i;
    batch.push(() => {
      const m = store.appendMessage({
        id: `m${k}`,
        sessionId: sid,
        role,
        content,
        createdAt: at,
        usage:
          role === "assistant"
            ? { inputTokens: 200, outputTokens: 80, cacheReadTokens: 0, cacheWriteTokens: 0 }
            : undefined,
      });
      if (withTool) {
        const tool = pick(TOOLS);
        store.recordToolCall({
          callId: `c${k}`,
          messageId: m.id,
          toolName: tool,
          argumentsJson: JSON.stringify({ path: `/w/${zipfWord()}/${zipfWord()}.txt`, query: sentence(2, 6) }),
          verdict: {
            decision: pick(DECISIONS),
            tier: 1,
            confidence: 0.9,
            reason: "bench",
            ruleIds: ["r1"],
            evaluationUs: 50,
          },
          result: sentence(10, 60),
          durationMs: 12,
          createdAt: at + 1000,
        });
        toolCalls++;
      }
    });
    if (batch.length >= BATCH) flush();
  }
  written += n;
  if (s % 1000 === 999) log(`  generated ${written} messages (${Math.round((performance.now() - t0) / 1000)} s)`);
}
flush();
if (reuse) {
  const st = store.stats();
  written = st.messages;
  toolCalls = st.toolCalls;
}
const genMs = reuse ? Number.NaN : performance.now() - t0;
store.close(); // checkpoint
store = Store.open(DB);
log(`generated ${written} messages, ${toolCalls} tool calls in ${(genMs / 1000).toFixed(1)} s`);

// --- 2. query mix ----------------------------------------------------------------------------------
const raw = new BetterSqlite3(DB, { readonly: true });
const sampleMessage = raw.prepare("SELECT content, session_id FROM messages WHERE pk = ?");
const maxPk = raw.prepare("SELECT MAX(pk) AS n FROM messages").get().n;
const sampleText = () => sampleMessage.get(1 + Math.floor(rand() * maxPk));
const queries = [];
const Q = quick ? 400 : 1000;
for (let i = 0; i < Q; i++) {
  const kind = i % 10;
  if (kind === 0) queries.push({ kind: "common word", text: VOCAB[5 + Math.floor(rand() * 40)] });
  else if (kind === 1) queries.push({ kind: "medium word", text: VOCAB[200 + Math.floor(rand() * 800)] });
  else if (kind === 2 || kind === 3)
    queries.push({ kind: "rare word", text: VOCAB[2000 + Math.floor(rand() * 15000)] });
  else if (kind === 4)
    queries.push({
      kind: "two words",
      text: `${VOCAB[50 + Math.floor(rand() * 500)]} ${VOCAB[50 + Math.floor(rand() * 500)]}`,
    });
  else if (kind === 5) {
    const w = sampleText().content.split(" ");
    const j = Math.floor(rand() * (w.length - 2));
    queries.push({ kind: "phrase", text: `"${w[j]} ${w[j + 1]}"` });
  } else if (kind === 6)
    queries.push({ kind: "prefix", text: `${VOCAB[100 + Math.floor(rand() * 2000)].slice(0, 4)}*` });
  else if (kind === 7)
    queries.push({
      kind: "in session",
      text: VOCAB[5 + Math.floor(rand() * 100)],
      options: { sessionId: sampleText().session_id },
    });
  else if (kind === 8)
    queries.push({
      kind: "tool + decision",
      text: VOCAB[20 + Math.floor(rand() * 200)],
      options: { toolName: pick(TOOLS), decision: "block" },
    });
  else
    queries.push({
      kind: "role + date",
      text: VOCAB[20 + Math.floor(rand() * 200)],
      options: { role: "user", from: start + span / 2, to: start + span },
    });
}

// Warm the page cache the same way for both sides.
for (const q of queries.slice(0, 50)) store.search(q.text, q.options);
const searchLat = queries.map((q) => time(() => store.search(q.text, q.options), "search"));
const byKind = {};
queries.forEach((q, i) => {
  (byKind[q.kind] ??= []).push(searchLat[i]);
  (cpu[`search: ${q.kind}`] ??= []).push(cpu.search[i]);
});
const windowed = queries.filter((q) => store.search(q.text, q.options).totalIsLowerBound).length;

// Baseline: the floor of any FTS5 answer, 20 matching rowids (newest first) from the message index:
// no ranking, joins, filters, snippets, count or tool calls. (ORDER BY rank is no floor: for a common
// word it takes seconds at this size, which is why search.ts bounds it.)
const { buildFtsQuery } = await import("../packages/store/dist/index.js");
const rawFts = raw.prepare("SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT 20");
const rawFtsLat = queries.map((q) => {
  const m = buildFtsQuery(q.text).match;
  return m ? time(() => rawFts.all(m)) : 0;
});

// --- 3. listing sessions, opening a session ---------------------------------------------------------
const L = 300;
const listLat = [],
  listRaw = [];
const rawList = raw.prepare("SELECT * FROM sessions ORDER BY updated_at DESC, id DESC LIMIT 50 OFFSET ?");
for (let i = 0; i < L; i++) {
  const offset = Math.floor(rand() * 20) * 50;
  listLat.push(time(() => store.listSessions({ limit: 50, offset }), "list"));
  listRaw.push(time(() => rawList.all(offset)));
}
const longSessions = raw.prepare("SELECT id FROM sessions WHERE message_count >= 200").pluck().all();
const openLat = [],
  openRaw = [],
  pkRaw = [];
const rawOpen = raw.prepare(
  "SELECT * FROM messages WHERE session_id = ? AND sub_agent_run_id IS NULL ORDER BY seq DESC LIMIT 200",
);
const rawPk = raw.prepare("SELECT * FROM messages WHERE pk = ?");
for (let i = 0; i < L && longSessions.length > 0; i++) {
  const sid = pick(longSessions);
  openLat.push(time(() => store.getHistory(sid, { limit: 200 }), "open"));
  openRaw.push(time(() => rawOpen.all(sid)));
  pkRaw.push(time(() => rawPk.get(1 + Math.floor(rand() * maxPk))));
}

// --- 4. appends, alone and with concurrent searches in a worker thread ------------------------------
const APPEND_SESSION = `append-bench-${Date.now()}`;
store.createSession({ id: APPEND_SESSION });
let turnNo = 0;
const appendFor = (durationMs) => {
  const end = performance.now() + durationMs;
  const lat = [];
  let turns = 0;
  while (performance.now() < end) {
    const id = `${APPEND_SESSION}-${turnNo++}`;
    lat.push(
      time(() =>
        store.commitTurn(APPEND_SESSION, {
          messages: [
            { id: `${id}u`, role: "user", content: sentence(5, 30) },
            { id, role: "assistant", content: sentence(15, 120) },
          ],
          toolCalls: [
            { callId: "c", messageId: id, toolName: pick(TOOLS), argumentsJson: "{}", result: sentence(10, 40) },
          ],
          events: [{ type: "RESPONSE_COMPLETE", messageId: id }],
        }),
      ),
    );
    turns++;
  }
  return { turnsPerSec: turns / (durationMs / 1000), p50: pct(lat, 50), p99: pct(lat, 99) };
};
const APPEND_MS = quick ? 3000 : 5000;
const appendAlone = appendFor(APPEND_MS);
const worker = new Worker(join(here, "lib", "history-search-worker.mjs"), {
  workerData: { path: DB, queries: queries.map(({ text, options }) => ({ text, options })) },
});
await new Promise((r) => worker.once("message", r));
await new Promise((r) => setTimeout(r, 200));
// Appends block this thread; the worker searches in parallel on its own connection (WAL readers).
const appendLoaded = appendFor(APPEND_MS);
worker.postMessage("stop");
const { latencies: loadedSearch } = await new Promise((r) => worker.once("message", r));
await worker.terminate();

const stats = store.stats();
store.close();
raw.close();

// --- 5. PostgreSQL beside SQLite -------------------------------------------------------------------
const missing = flag("no-postgres") ? "--no-postgres" : await postgresMissing();
const allow = { decision: "allow", tier: 0, confidence: 1, reason: "policy", ruleIds: ["r"], evaluationUs: 5 };
const postgres = missing
  ? undefined
  : await compareWithPostgres({
      db: DB,
      queries,
      sessions: longSessions.length > 0 ? longSessions : [APPEND_SESSION],
      // A turn: 2 messages, 1 tool call, 6 events, 1 audit entry.
      turn: (prefix, i) => ({
        messages: [
          { id: `${prefix}u${i}`, role: "user", content: sentence(5, 30) },
          { id: `${prefix}a${i}`, role: "assistant", content: sentence(15, 120), parentId: `${prefix}u${i}` },
        ],
        toolCalls: [
          {
            callId: "c",
            messageId: `${prefix}a${i}`,
            toolName: pick(TOOLS),
            argumentsJson: "{}",
            verdict: allow,
            result: sentence(10, 40),
          },
        ],
        events: Array.from({ length: 6 }, (_, k) => ({ type: `E${k}`, payload: { k } })),
        audit: [{ kind: "execution", callId: "c", payload: { ok: true } }],
      }),
      log,
    });

// --- report ----------------------------------------------------------------------------------------
const row = (name, p50, p99, goal, base, cpuKey) => ({
  name,
  p50_ms: ms(p50),
  p99_ms: ms(p99),
  goal,
  baseline_p50_ms: base === undefined ? null : ms(base),
  ratio: base ? Math.round((p50 / base) * 10) / 10 : null,
  cpu_p50_ms: cpuKey && cpu[cpuKey] ? ms(pct(cpu[cpuKey], 50)) : null,
  cpu_p99_ms: cpuKey && cpu[cpuKey] ? ms(pct(cpu[cpuKey], 99)) : null,
});
const rows = [
  row(
    "search (Store.search, mix)",
    pct(searchLat, 50),
    pct(searchLat, 99),
    "p50 ≤ 20, p99 ≤ 100",
    pct(rawFtsLat, 50),
    "search",
  ),
  ...Object.entries(byKind).map(([k, v]) =>
    row(`  search: ${k}`, pct(v, 50), pct(v, 99), "", undefined, `search: ${k}`),
  ),
  row("search during appends (worker)", pct(loadedSearch, 50), pct(loadedSearch, 99), "", pct(searchLat, 50)),
  row("list sessions (page of 50)", pct(listLat, 50), pct(listLat, 99), "≤ 5", pct(listRaw, 50), "list"),
  row("open session (last 200 msgs)", pct(openLat, 50), pct(openLat, 99), "≤ 10", pct(openRaw, 50), "open"),
  row("raw SELECT by primary key", pct(pkRaw, 50), pct(pkRaw, 99), "(floor)", undefined),
  row("commitTurn alone (2 msgs+call+event)", appendAlone.p50, appendAlone.p99, "", undefined),
  row("commitTurn with searches running", appendLoaded.p50, appendLoaded.p99, "", appendAlone.p50),
];
const result = {
  benchmark: "history",
  date: new Date().toISOString(),
  node: process.version,
  cores: availableParallelism(),
  loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
  windowedQueries: windowed,
  config: {
    messages: written,
    sessions: SESSIONS,
    toolCalls,
    queries: queries.length,
    quick,
    synchronous_appends: "full",
    synchronous_generation: "normal",
  },
  generation: { seconds: Math.round(genMs / 100) / 10, messagesPerSec: Math.round(written / (genMs / 1000)) },
  dbBytes: stats.dbBytes,
  appends: {
    aloneTurnsPerSec: Math.round(appendAlone.turnsPerSec),
    withSearchesTurnsPerSec: Math.round(appendLoaded.turnsPerSec),
    searchesDuringAppends: loadedSearch.length,
  },
  rows,
  postgres: postgres ?? { skipped: missing },
  baselines: {
    search:
      "raw FTS5 `SELECT rowid FROM messages_fts WHERE MATCH ? ORDER BY rowid DESC LIMIT 20` (no ranking, joins, filters, snippets, count, tool calls)",
    list: "raw `SELECT * FROM sessions ORDER BY updated_at DESC LIMIT 50 OFFSET ?`",
    open: "raw `SELECT * FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT 200` (no tool calls, no mapping)",
  },
};
const pad = (x, n) => String(x).padEnd(n);
console.log(
  `\nhistory benchmark: ${written.toLocaleString("en")} messages, ${SESSIONS.toLocaleString("en")} sessions, ${toolCalls.toLocaleString("en")} tool calls`,
);
console.log(
  `${reuse ? "generation skipped (--reuse)" : `generation ${result.generation.seconds} s (${result.generation.messagesPerSec.toLocaleString("en")} msg/s)`}, database ${(stats.dbBytes / 1048576).toFixed(1)} MiB`,
);
console.log(
  `search: ${windowed} of ${queries.length} queries hit a common term and were ranked over the newest matches (see packages/store/src/search.ts)`,
);
console.log(
  `appends: ${result.appends.aloneTurnsPerSec} turns/s alone, ${result.appends.withSearchesTurnsPerSec} turns/s with a search worker (${loadedSearch.length} searches meanwhile), synchronous=FULL\n`,
);
console.log(
  `machine: ${result.cores} cores, load average ${result.loadAverage.join(" ")} (cpu columns: CPU time of this process per operation)\n`,
);
console.log(
  `${pad("measure", 38)}${pad("p50 ms", 10)}${pad("p99 ms", 10)}${pad("cpu p50", 10)}${pad("cpu p99", 10)}${pad("goal ms", 22)}${pad("baseline p50", 14)}ratio`,
);
for (const r of rows)
  console.log(
    `${pad(r.name, 38)}${pad(r.p50_ms, 10)}${pad(r.p99_ms, 10)}${pad(r.cpu_p50_ms ?? "", 10)}${pad(r.cpu_p99_ms ?? "", 10)}${pad(r.goal, 22)}${pad(r.baseline_p50_ms ?? "", 14)}${r.ratio ?? ""}`,
  );
if (postgres) {
  const f = (x) => x.toFixed(2);
  console.log(
    `\nPostgreSQL beside SQLite (same run, interleaved): ${postgres.messages.toLocaleString("en")} messages copied in ${postgres.copySeconds.toFixed(1)} s; exact totals equal for ${postgres.exactTotals.same} of ${postgres.exactTotals.of} queries ranked exactly on both`,
  );
  console.log(`${pad("measure", 38)}${pad("SQLite ms", 12)}${pad("PostgreSQL ms", 15)}PostgreSQL / SQLite`);
  for (const r of postgres.rows)
    console.log(`${pad(r.what, 38)}${pad(f(r.sqlite_ms), 12)}${pad(f(r.postgres_ms), 15)}${r.ratio.toFixed(2)}x`);
  for (const k of postgres.byKind)
    console.log(
      `${pad(`  search: ${k.kind} p50 / p99`, 38)}${pad(`${f(k.sqlite[0])} / ${f(k.sqlite[1])}`, 16)}${f(k.postgres[0])} / ${f(k.postgres[1])}`,
    );
  console.log("goals on PostgreSQL: search p50 <= 20 ms, p99 <= 100 ms; a turn's commit <= 2x SQLite's");
} else console.log(`\nPostgreSQL skipped: ${missing}`);
mkdirSync(join(here, "results"), { recursive: true });
writeFileSync(join(here, "results", "history.json"), `${JSON.stringify(result, null, 2)}\n`);
if (!flag("keep") && opt("db", "") === "") rmSync(dir, { recursive: true, force: true });
else console.log(`database kept at ${DB}`);
