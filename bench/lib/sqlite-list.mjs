// The floor of `palisade sessions list`: a bare Node script that opens the SQLite file with
// better-sqlite3 (read-only), reads the same page (20 most recent sessions, and the count) and
// prints it as the CLI does. argv: the database file
import BetterSqlite3 from "better-sqlite3";

const db = new BetterSqlite3(process.argv[2], { readonly: true });
const rows = db
  .prepare("SELECT id, title, message_count, updated_at FROM sessions ORDER BY updated_at DESC, id DESC LIMIT 20")
  .all();
const { n } = db.prepare("SELECT COUNT(*) AS n FROM sessions").get();
const date = (ms) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);
let out = "ID            UPDATED           MSGS  TITLE\n";
for (const r of rows)
  out += `${String(r.id).slice(0, 12).padEnd(12)}  ${date(r.updated_at)}  ${String(r.message_count).padEnd(4)}  ${r.title}\n`;
process.stdout.write(`${out}(${rows.length} of ${n})\n`);
db.close();
