// bench/history.mjs's PostgreSQL part: the SQLite history it made is copied into a fresh
// database of a private cluster (fsync on) with copyToPostgres, as `palisade store copy` does,
// and both stores answer the same queries, list sessions, open sessions and commit turns,
// interleaved (SQLite, then PostgreSQL, per operation), in the same run.
import { resolve } from "node:path";
import { PgStore, Store, copyToPostgres } from "../../packages/store/dist/index.js";

const here = import.meta.dirname;
const cluster = () => import(resolve(here, "../../packages/store/test/postgres-cluster.ts"));

/** Why PostgreSQL cannot run here, or undefined. */
export async function postgresMissing() {
  return (await cluster()).postgresUnavailable();
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const timeIt = async (fn) => {
  const t = performance.now();
  await fn();
  return performance.now() - t;
};

/**
 * `queries`: [{ kind, text, options }]; `sessions`: ids to list/open/commit into; `turn(prefix, i)`:
 * a turn's rows. Returns the rows of the comparison table and the copy's figures.
 */
export async function compareWithPostgres({ db, queries, sessions, turn, log }) {
  const { startPostgres } = await cluster();
  const pgCluster = await startPostgres({ durable: true });
  try {
    const pg = await PgStore.open({
      url: pgCluster.url(await pgCluster.createDatabase()),
      password: pgCluster.admin.password,
    });
    const sqlite = Store.open(db, { synchronous: "full" });
    try {
      const t0 = performance.now();
      const copied = await copyToPostgres(sqlite, pg, {
        onProgress: (d, n) => {
          if (d % 2000 === 0 || d === n) log(`  copied ${String(d)}/${String(n)} sessions into PostgreSQL`);
        },
      });
      const copySeconds = (performance.now() - t0) / 1000;
      if (!copied.ok) throw new Error(`the copy does not match: ${JSON.stringify(copied.mismatched)}`);

      for (const q of queries.slice(0, 50)) {
        sqlite.search(q.text, q.options);
        await pg.search(q.text, q.options);
      }
      const lat = { sqlite: [], postgres: [] };
      let exact = 0;
      let same = 0;
      for (const q of queries) {
        let a, b;
        lat.sqlite.push(await timeIt(() => (a = sqlite.search(q.text, q.options))));
        lat.postgres.push(await timeIt(async () => (b = await pg.search(q.text, q.options))));
        if (!a.totalIsLowerBound && !b.totalIsLowerBound) {
          exact++;
          if (a.total === b.total) same++;
          else log(`  totals differ for ${JSON.stringify(q.text)}: SQLite ${a.total}, PostgreSQL ${b.total}`);
        }
      }
      const list = { sqlite: [], postgres: [] };
      const open = { sqlite: [], postgres: [] };
      for (let i = 0; i < 200; i++) {
        const page = { limit: 50, offset: (i % 20) * 50 };
        list.sqlite.push(await timeIt(() => sqlite.listSessions(page)));
        list.postgres.push(await timeIt(() => pg.listSessions(page)));
        const id = sessions[i % sessions.length];
        open.sqlite.push(await timeIt(() => sqlite.getHistory(id, { limit: 200 })));
        open.postgres.push(await timeIt(() => pg.getHistory(id, { limit: 200 })));
      }
      // Durable on both: SQLite synchronous=FULL, PostgreSQL synchronous_commit on with fsync.
      const commit = { sqlite: [], postgres: [] };
      // Ids of this run: with --reuse the SQLite file keeps the turns of the runs before.
      const run = Date.now().toString(36);
      for (let i = 0; i < 300; i++) {
        const id = sessions[i % sessions.length];
        commit.sqlite.push(await timeIt(() => sqlite.commitTurn(id, turn(`pgbench-${run}-s`, i))));
        commit.postgres.push(await timeIt(() => pg.commitTurn(id, turn(`pgbench-${run}-p`, i))));
      }
      const byKind = [...new Set(queries.map((q) => q.kind))].map((kind) => {
        const at = queries.flatMap((q, i) => (q.kind === kind ? [i] : []));
        const of = (s, p) =>
          pct(
            at.map((i) => lat[s][i]),
            p,
          );
        return {
          kind,
          sqlite: [of("sqlite", 50), of("sqlite", 99)],
          postgres: [of("postgres", 50), of("postgres", 99)],
        };
      });
      const row = (what, xs, p) => ({
        what,
        sqlite_ms: pct(xs.sqlite, p),
        postgres_ms: pct(xs.postgres, p),
        ratio: pct(xs.postgres, p) / Math.max(1e-9, pct(xs.sqlite, p)),
      });
      return {
        messages: copied.to.messages,
        sessions: copied.to.sessions,
        copySeconds,
        exactTotals: { same, of: exact },
        rows: [
          row("search mix p50", lat, 50),
          row("search mix p99", lat, 99),
          row("sessions list (page of 50) p50", list, 50),
          row("open session (last 200) p50", open, 50),
          row("turn commit p50 (durable)", commit, 50),
          row("turn commit p99 (durable)", commit, 99),
        ],
        byKind,
      };
    } finally {
      sqlite.close();
      await pg.close();
    }
  } finally {
    await pgCluster.stop();
  }
}
