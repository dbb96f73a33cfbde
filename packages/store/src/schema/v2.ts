/**
 * Schema version 2: full-text search over messages and tool calls, and the hash-chained audit trail.
 * FTS tables are external-content (no second copy of the text), kept in sync by triggers.
 */
export const V2 = `
-- Session-scoped search walks a session's messages (main history and sub-agent transcripts).
CREATE INDEX messages_session_created ON messages (session_id, created_at);

CREATE VIRTUAL TABLE messages_fts USING fts5 (
  content, content = 'messages', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO messages_fts (rowid, content) VALUES (new.pk, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.pk, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
  INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.pk, old.content);
  INSERT INTO messages_fts (rowid, content) VALUES (new.pk, new.content);
END;
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE tool_calls_fts USING fts5 (
  tool_name, arguments_json, result,
  content = 'tool_calls', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER tool_calls_fts_insert AFTER INSERT ON tool_calls BEGIN
  INSERT INTO tool_calls_fts (rowid, tool_name, arguments_json, result)
  VALUES (new.pk, new.tool_name, new.arguments_json, new.result);
END;
CREATE TRIGGER tool_calls_fts_delete AFTER DELETE ON tool_calls BEGIN
  INSERT INTO tool_calls_fts (tool_calls_fts, rowid, tool_name, arguments_json, result)
  VALUES ('delete', old.pk, old.tool_name, old.arguments_json, old.result);
END;
CREATE TRIGGER tool_calls_fts_update AFTER UPDATE OF tool_name, arguments_json, result ON tool_calls BEGIN
  INSERT INTO tool_calls_fts (tool_calls_fts, rowid, tool_name, arguments_json, result)
  VALUES ('delete', old.pk, old.tool_name, old.arguments_json, old.result);
  INSERT INTO tool_calls_fts (rowid, tool_name, arguments_json, result)
  VALUES (new.pk, new.tool_name, new.arguments_json, new.result);
END;
INSERT INTO tool_calls_fts (tool_calls_fts) VALUES ('rebuild');

-- Append-only and hash-chained: hash = sha256(prev_hash || canonical row), see audit.ts.
-- No foreign keys: the trail outlives the sessions it mentions.
CREATE TABLE audit (
  seq INTEGER PRIMARY KEY,
  ts INTEGER NOT NULL,
  session_id TEXT NOT NULL DEFAULT '',
  kind TEXT NOT NULL,
  actor TEXT NOT NULL DEFAULT '',
  call_id TEXT NOT NULL DEFAULT '',
  payload TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX audit_session ON audit (session_id, seq);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'audit rows are append-only: UPDATE is forbidden'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'audit rows are append-only: DELETE is forbidden'); END;

-- The newest (seq, hash), written with every append: a deleted tail shows up as a mismatch.
CREATE TABLE audit_head (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL
);
`;
