#!/usr/bin/env node
// Session history on PostgreSQL beside SQLite, in the same run on the same corpus: a SQLite
// history is generated (or given with --db, e.g. one `bench/history.mjs --db FILE --keep` made),
// copied into a fresh PostgreSQL database with copyToPostgres (as `palisade store copy` does), and
// both stores answer the same query mix, list sessions, open a session's last 200 messages and
// commit turns. PostgreSQL runs in a private cluster with fsync on. Needs `make build`.
//   node bench/history-postgres.mjs [--messages 100000] [--sessions 1000] [--queries 400] [--db FILE]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PgStore, Store, copyToPostgres } from "../packages/store/dist/index.js";
import { percentile, printTable, writeResult } from "./lib/stats.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const MESSAGES = Number(opt("messages", 100_000));
const SESSIONS = Number(opt("sessions", 1_000));
const QUERIES = Number(opt("queries", 400));
const dir = mkdtempSync(join(tmpdir(), "palisade-bench-history-pg-"));
const given = opt("db", "");
const DB = given ? resolve(given) : join(dir, "history.db");
const log = (...a) => console.error(...a);

// Deterministic text: a Zipf-like vocabulary, as bench/history.mjs.
let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed / 0x100000000;
};
const pick = (a) => a[Math.floor(rand() * a.length)];
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
const VOCAB =
  "deploy billing service cluster staging database migration query latency error timeout config kubernetes report invoice customer order email meeting".split(
    " ",
  );
while (VOCAB.length < 20_000) VOCAB.push(pick(SYL) + pick(SYL) + pick(SYL) + (rand() < 0.5 ? pick(SYL) : ""));
const CDF = [];
{
  let acc = 0;
  for (let r = 0; r < VOCAB.length; r++) {
    acc += 1 / (r + 1);
    CDF.push(acc);
  }
  for (let r = 0; r < CDF.length; r++) CDF[r] /= acc;
}
const word = () => {
  const x = rand();
  let lo = 0,
    hi = CDF.length - 1;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (CDF[m] < x) lo = m + 1;
    else hi = m;
  }
  return VOCAB[lo];
};
const sentence = (min, max) => Array.from({ length: min + Math.floor(rand() * (max - min)) }, word).join(" ");
const TOOLS = ["files__read_file", "shell__run", "http__fetch"];
const allow = { decision: "allow", tier: 0, confidence: 1, reason: "policy", ruleIds: ["r"], evaluationUs: 5 };
const block = { ...allow, decision: "block", tier: 1 };

const sqlite = Store.open(DB, { synchronous: "normal" });
const start = Date.UTC(2026, 0, 1);
if (!given) {
  const t = performance.now();
  const per = Math.max(2, Math.round(MESSAGES / SESSIONS));
  for (let s = 0; s < SESSIONS; s++) {
    const id = `ses_${String(s).padStart(6, "0")}`;
    const at = start + s * 60_000;
    sqlite.createSession({ id, title: sentence(2, 5), titleSource: "user", createdAt: at });
    const messages = Array.from({ length: per }, (_, i) => ({
      id: `${id}_m${String(i)}`,
      role: i % 2 ? "assistant" : "user",
      content: sentence(8, 40),
      createdAt: at + i,
    }));
    const toolCalls = messages
      .filter((_, i) => i % 10 === 1)
      .map((m, k) => ({
        callId: `c${String(k)}`,
        messageId: m.id,
        toolName: pick(TOOLS),
        argumentsJson: JSON.stringify({ q: sentence(2, 6) }),
        verdict: rand() < 0.2 ? block : allow,
        result: sentence(4, 20),
        createdAt: m.createdAt,
      }));
    sqlite.commitTurn(id, { messages, toolCalls, audit: [{ kind: "execution", callId: "c0", payload: { n: s } }] });
  }
  log(
    `generated ${String(sqlite.stats().messages)} messages in ${String(SESSIONS)} sessions in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
}

const { startPostgres } = await import(resolve(here, "../packages/store/test/postgres-cluster.ts"));
const cluster = await startPostgres({ durable: true });
const pg = await PgStore.open({ url: cluster.url(await cluster.createDatabase()), password: cluster.admin.password });
const tc = performance.now();
const copied = await copyToPostgres(sqlite, pg, {
  onProgress: (d, n) => {
    if (d % 1000 === 0 || d === n) log(`copied ${String(d)}/${String(n)} sessions`);
  },
});
const copyS = (performance.now() - tc) / 1000;
if (!copied.ok) throw new Error(`the copy does not match: ${JSON.stringify(copied.mismatched)}`);

// The query mix (from the corpus): common, medium, rare, two words, phrase, prefix, in session, tool + decision, role + date.
const sample = () =>
  sqlite.getHistory(`ses_${String(Math.floor(rand() * SESSIONS)).padStart(6, "0")}`, { limit: 5 }).messages[0];
const queries = [];
for (let i = 0; i < QUERIES; i++) {
  const kind = i % 9;
  if (kind === 0) queries.push({ kind: "common word", text: VOCAB[5 + Math.floor(rand() * 40)] });
  else if (kind === 1) queries.push({ kind: "medium word", text: VOCAB[200 + Math.floor(rand() * 800)] });
  else if (kind === 2) queries.push({ kind: "rare word", text: VOCAB[2000 + Math.floor(rand() * 15000)] });
  else if (kind === 3)
    queries.push({
      kind: "two words",
      text: `${VOCAB[50 + Math.floor(rand() * 500)]} ${VOCAB[50 + Math.floor(rand() * 500)]}`,
    });
  else if (kind === 4) {
    const w = (sample()?.content ?? "a b c").split(" ");
    const j = Math.floor(rand() * Math.max(1, w.length - 2));
    queries.push({ kind: "phrase", text: `"${w[j]} ${w[j + 1] ?? ""}"` });
  } else if (kind === 5)
    queries.push({ kind: "prefix", text: `${VOCAB[100 + Math.floor(rand() * 2000)].slice(0, 4)}*` });
  else if (kind === 6)
    queries.push({
      kind: "in session",
      text: VOCAB[5 + Math.floor(rand() * 100)],
      options: { sessionId: sample()?.sessionId },
    });
  else if (kind === 7)
    queries.push({
      kind: "tool + decision",
      text: VOCAB[20 + Math.floor(rand() * 200)],
      options: { toolName: pick(TOOLS), decision: "block" },
    });
  else
    queries.push({
      kind: "role + date",
      text: VOCAB[20 + Math.floor(rand() * 200)],
      options: { role: "user", from: start + (SESSIONS * 60_000) / 2, to: start + SESSIONS * 60_000 },
    });
}
const timeIt = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};
for (const q of queries.slice(0, 30)) {
  sqlite.search(q.text, q.options);
  await pg.search(q.text, q.options);
} // warm both caches
const lat = { sqlite: [], postgres: [] };
let sameTotals = 0,
  exact = 0;
for (const q of queries) {
  let a, b;
  lat.sqlite.push(
    await timeIt(() => {
      a = sqlite.search(q.text, q.options);
    }),
  );
  lat.postgres.push(
    await timeIt(async () => {
      b = await pg.search(q.text, q.options);
    }),
  );
  if (!a.totalIsLowerBound && !b.totalIsLowerBound) {
    exact++;
    if (a.total === b.total) sameTotals++;
    else
      log(
        `totals differ for ${JSON.stringify(q.text)} ${JSON.stringify(q.options ?? {})}: SQLite ${String(a.total)}, PostgreSQL ${String(b.total)}`,
      );
  }
}
const ids = Array.from({ length: 200 }, () => `ses_${String(Math.floor(rand() * SESSIONS)).padStart(6, "0")}`);
const listLat = { sqlite: [], postgres: [] };
const openLat = { sqlite: [], postgres: [] };
for (let i = 0; i < 200; i++) {
  listLat.sqlite.push(await timeIt(() => sqlite.listSessions({ limit: 50, offset: (i % 10) * 50 })));
  listLat.postgres.push(await timeIt(() => pg.listSessions({ limit: 50, offset: (i % 10) * 50 })));
  openLat.sqlite.push(await timeIt(() => sqlite.getHistory(ids[i], { limit: 200 })));
  openLat.postgres.push(await timeIt(() => pg.getHistory(ids[i], { limit: 200 })));
}
// A turn's commit (2 messages, 1 tool call, 6 events, 1 audit entry), durable on both: SQLite FULL, PostgreSQL synchronous_commit on.
sqlite.close();
const durable = Store.open(DB, { synchronous: "full" });
const commitLat = { sqlite: [], postgres: [] };
for (let i = 0; i < 200; i++) {
  const sid = ids[i];
  const rows = (p) => ({
    messages: [
      { id: `${p}u${String(i)}`, role: "user", content: sentence(5, 15) },
      { id: `${p}a${String(i)}`, role: "assistant", content: sentence(10, 30) },
    ],
    toolCalls: [
      {
        callId: `b${String(i)}`,
        messageId: `${p}a${String(i)}`,
        toolName: "files__read_file",
        argumentsJson: "{}",
        verdict: allow,
        result: "ok",
      },
    ],
    events: Array.from({ length: 6 }, (_, k) => ({ type: `E${String(k)}`, payload: { k } })),
    audit: [{ kind: "execution", callId: `b${String(i)}`, payload: { ok: true } }],
  });
  commitLat.sqlite.push(await timeIt(() => durable.commitTurn(sid, rows("s"))));
  commitLat.postgres.push(await timeIt(() => pg.commitTurn(sid, rows("p"))));
}
durable.close();
await pg.close();
await cluster.stop();
if (!given) rmSync(dir, { recursive: true, force: true });

const p = (xs, q) =>
  percentile(
    [...xs].sort((x, y) => x - y),
    q,
  );
const f = (x) => x.toFixed(2);
const rows = [
  ["search mix p50 ms", (s) => p(lat[s], 50)],
  ["search mix p99 ms", (s) => p(lat[s], 99)],
  ["sessions list (50) p50 ms", (s) => p(listLat[s], 50)],
  ["open last 200 messages p50 ms", (s) => p(openLat[s], 50)],
  ["turn commit p50 ms", (s) => p(commitLat[s], 50)],
  ["turn commit p99 ms", (s) => p(commitLat[s], 99)],
].map(([what, get]) => ({
  what,
  SQLite: f(get("sqlite")),
  PostgreSQL: f(get("postgres")),
  "PostgreSQL / SQLite": `${(get("postgres") / Math.max(1e-9, get("sqlite"))).toFixed(2)}x`,
}));
printTable(
  `History on PostgreSQL beside SQLite: ${String(copied.to.messages)} messages, ${String(copied.to.sessions)} sessions, ${String(QUERIES)} queries; load ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
  rows,
);
const kinds = [...new Set(queries.map((q) => q.kind))];
printTable(
  "Search by kind (p50 / p99 ms)",
  kinds.map((k) => {
    const at = queries.map((q, i) => (q.kind === k ? i : -1)).filter((i) => i >= 0);
    const of = (s) => at.map((i) => lat[s][i]);
    return {
      kind: k,
      SQLite: `${f(p(of("sqlite"), 50))} / ${f(p(of("sqlite"), 99))}`,
      PostgreSQL: `${f(p(of("postgres"), 50))} / ${f(p(of("postgres"), 99))}`,
    };
  }),
);
console.log(
  `\ncopied in ${copyS.toFixed(1)} s; exact totals equal on both stores for ${String(sameTotals)} of ${String(exact)} queries ranked exactly on both`,
);
console.log(`goals: search p50 <= 20 ms and p99 <= 100 ms on PostgreSQL; a turn's commit <= 2x SQLite's`);
console.log(
  `written ${writeResult("history-postgres", { messages: copied.to.messages, sessions: copied.to.sessions, queries: QUERIES, copySeconds: copyS, rows, loadavg: loadavg() })}`,
);
