// The PostgreSQL schema, versioned like the SQLite one: migration N turns version N-1 into N,
// each in its own transaction with its version row. Never edit a released migration: add one.
// Columns match the SQLite tables (rows.ts maps both); full-text search is a tsvector per row,
// built by the store with the same tokenizer as FTS5's unicode61 (fts-vector.ts), GIN-indexed.
export const PG_V1 = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL DEFAULT '',
  title_source TEXT NOT NULL DEFAULT 'none' CHECK (title_source IN ('none', 'first_message', 'auto', 'user')),
  mode TEXT NOT NULL DEFAULT 'normal' CHECK (mode IN ('normal', 'heartbeat')),
  workspace TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  model_chosen INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  cache_read_tokens BIGINT NOT NULL DEFAULT 0,
  cache_write_tokens BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX sessions_updated ON sessions (updated_at, id);
CREATE INDEX sessions_created ON sessions (created_at, id);
CREATE INDEX sessions_title ON sessions (lower(title), id);

CREATE TABLE messages (
  pk BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  sub_agent_run_id TEXT,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
  content TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  parent_id TEXT REFERENCES messages (id) ON DELETE CASCADE,
  tool_call_id TEXT,
  input_tokens BIGINT,
  output_tokens BIGINT,
  cache_read_tokens BIGINT,
  cache_write_tokens BIGINT,
  tsv TSVECTOR NOT NULL
);
CREATE UNIQUE INDEX messages_session_seq ON messages (session_id, seq) WHERE sub_agent_run_id IS NULL;
CREATE UNIQUE INDEX messages_run_seq ON messages (sub_agent_run_id, seq) WHERE sub_agent_run_id IS NOT NULL;
CREATE INDEX messages_parent ON messages (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX messages_session_created ON messages (session_id, created_at);
CREATE INDEX messages_tsv ON messages USING GIN (tsv);

CREATE TABLE sub_agent_runs (
  id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  parent_message_id TEXT REFERENCES messages (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  task TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL CHECK (state IN ('running', 'completed', 'failed', 'cancelled')),
  result TEXT,
  error TEXT,
  llm_calls INTEGER NOT NULL DEFAULT 0,
  tool_calls INTEGER NOT NULL DEFAULT 0,
  started_at BIGINT NOT NULL,
  ended_at BIGINT
);
CREATE INDEX sub_agent_runs_session ON sub_agent_runs (session_id, started_at);
CREATE INDEX sub_agent_runs_parent ON sub_agent_runs (parent_message_id);
ALTER TABLE messages ADD FOREIGN KEY (sub_agent_run_id) REFERENCES sub_agent_runs (id) ON DELETE CASCADE;

CREATE TABLE tool_calls (
  pk BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  call_id TEXT NOT NULL,
  message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  sub_agent_run_id TEXT REFERENCES sub_agent_runs (id) ON DELETE CASCADE,
  sub_agent_name TEXT NOT NULL DEFAULT '',
  tool_name TEXT NOT NULL,
  arguments_json TEXT NOT NULL DEFAULT '{}',
  verdict_decision TEXT CHECK (verdict_decision IN ('allow', 'block', 'escalate')),
  verdict_tier INTEGER,
  verdict_confidence DOUBLE PRECISION,
  verdict_reason TEXT,
  verdict_rule_ids TEXT,
  verdict_evaluation_us BIGINT,
  approval_decision TEXT CHECK (approval_decision IN ('allow_once', 'allow_session', 'deny', 'timeout')),
  approval_by TEXT,
  approval_at BIGINT,
  result TEXT,
  is_error INTEGER NOT NULL DEFAULT 0,
  duration_ms BIGINT,
  artifacts_json TEXT NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL,
  completed_at BIGINT,
  tsv TSVECTOR NOT NULL,
  UNIQUE (message_id, call_id)
);
CREATE INDEX tool_calls_session ON tool_calls (session_id, created_at);
CREATE INDEX tool_calls_run ON tool_calls (sub_agent_run_id) WHERE sub_agent_run_id IS NOT NULL;
CREATE INDEX tool_calls_created ON tool_calls (created_at);
CREATE INDEX tool_calls_tsv ON tool_calls USING GIN (tsv);

CREATE TABLE events (
  pk BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  message_id TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  UNIQUE (session_id, seq)
);
CREATE FUNCTION palisade_refuse() RETURNS TRIGGER LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '%', TG_ARGV[0]; END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
  FOR EACH ROW EXECUTE FUNCTION palisade_refuse('events are append-only: rows cannot be updated');

CREATE TABLE memory (
  pk BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  message_id TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL,
  summary TEXT NOT NULL DEFAULT '',
  compacted_messages INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);
CREATE INDEX memory_session ON memory (session_id, pk);

CREATE TABLE artifacts (
  id TEXT PRIMARY KEY,
  session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,
  owner TEXT NOT NULL DEFAULT '',
  call_id TEXT,
  filename TEXT NOT NULL,
  mime_type TEXT NOT NULL DEFAULT 'application/octet-stream',
  size_bytes BIGINT NOT NULL,
  sha256 TEXT,
  path TEXT,
  data BYTEA,
  created_at BIGINT NOT NULL,
  expires_at BIGINT
);
CREATE INDEX artifacts_session ON artifacts (session_id);
CREATE INDEX artifacts_expires ON artifacts (expires_at) WHERE expires_at IS NOT NULL;

-- Append-only and hash-chained (audit.ts); no foreign keys: the trail outlives its sessions.
CREATE TABLE audit (
  seq BIGINT PRIMARY KEY,
  ts BIGINT NOT NULL,
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
  FOR EACH ROW EXECUTE FUNCTION palisade_refuse('audit rows are append-only: UPDATE is forbidden');
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
  FOR EACH ROW EXECUTE FUNCTION palisade_refuse('audit rows are append-only: DELETE is forbidden');
-- The head row exists from the start: every appender locks it (SELECT … FOR UPDATE), so the
-- Engines sharing this database extend one chain in turn.
CREATE TABLE audit_head (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  seq BIGINT NOT NULL,
  hash TEXT NOT NULL
);
INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '${"0".repeat(64)}');
-- The first seq hashed with the deployment's audit key, and which key (a fingerprint, not the
-- key): every Engine of the deployment must hold the same key file.
CREATE TABLE audit_keying (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  from_seq BIGINT NOT NULL,
  key_fingerprint TEXT NOT NULL
);

-- Which Engine serves a live session: a lease it renews by heartbeat (leases.ts).
CREATE TABLE engines (
  id TEXT PRIMARY KEY,
  address TEXT NOT NULL DEFAULT '',
  started_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL
);
CREATE TABLE session_leases (
  session_id TEXT PRIMARY KEY,
  engine_id TEXT NOT NULL,
  acquired_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  -- The user message of the turn in flight, or '' between turns.
  turn_message_id TEXT NOT NULL DEFAULT '',
  -- Its text, so that an Engine taking the session over can record the turn if it was not committed.
  turn_content TEXT NOT NULL DEFAULT '',
  turn_started_at BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX session_leases_engine ON session_leases (engine_id);
`;

/**
 * Version 2: the GIN indexes without a pending list. With fastupdate a new row's entries wait in
 * a list every search scans in full until a VACUUM merges it, so after a burst of writes the
 * planner turns to a sequential scan (a rare word: 11 ms instead of 0.2 ms on 20,000 messages).
 * A turn adds a few rows; merging them at once costs little.
 */
export const PG_V2 = `
ALTER INDEX messages_tsv SET (fastupdate = off);
ALTER INDEX tool_calls_tsv SET (fastupdate = off);
SELECT gin_clean_pending_list('messages_tsv'::regclass);
SELECT gin_clean_pending_list('tool_calls_tsv'::regclass);
`;

/** Version 3: each tool call's result label (as SQLite's version 5). */
export const PG_V3 = `
ALTER TABLE tool_calls ADD COLUMN result_trust TEXT NOT NULL DEFAULT '';
`;

/**
 * Version 4: where each tool call happened in its message's text (UTF-16 code units of the content
 * before it; schema/v6.ts of SQLite). Calls stored before have 0 and show before the text.
 */
export const PG_V4 = `
ALTER TABLE tool_calls ADD COLUMN text_offset INTEGER NOT NULL DEFAULT 0;
`;

/**
 * Version 5: palisade_turn_lock(), so that a turn's commit is one statement (turn-sql.ts
 * TURN_COMMIT): it takes the locks a turn is written under, in the order TURN_LOCK takes them
 * (the session's lease when fenced, the session's row, the audit head when the turn has audit
 * rows), refuses the turn by raising (nothing of the statement is then written), and reads the
 * seq bases after the locks, each query on a fresh snapshot. The caller chains the audit rows from
 * the head it last saw; when another Engine moved the head since, the function says where it is
 * (PA003: DETAIL the seq, HINT the hash) and the caller commits again under BEGIN … COMMIT.
 */
export const PG_V5 = `
CREATE FUNCTION palisade_turn_lock(p_session text, p_engine text, p_audit boolean, p_head_seq bigint, p_head_hash text,
  OUT message_base integer, OUT event_base integer)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  lease_engine text;
  lease_live boolean;
  head_seq bigint;
  head_hash text;
BEGIN
  IF p_engine IS NOT NULL THEN
    SELECT engine_id, expires_at > (extract(epoch from clock_timestamp()) * 1000)::bigint INTO lease_engine, lease_live
      FROM session_leases WHERE session_id = p_session FOR UPDATE;
    IF lease_engine IS NOT NULL AND lease_engine <> p_engine AND lease_live THEN
      RAISE EXCEPTION 'session % is served by Engine %', p_session, lease_engine
        USING ERRCODE = 'PA001', DETAIL = lease_engine;
    END IF;
  END IF;
  PERFORM 1 FROM sessions WHERE id = p_session FOR UPDATE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'session % does not exist', p_session USING ERRCODE = 'PA002';
  END IF;
  IF p_audit THEN
    SELECT seq, hash INTO head_seq, head_hash FROM audit_head WHERE id = 1 FOR UPDATE;
    IF head_seq IS DISTINCT FROM p_head_seq OR head_hash IS DISTINCT FROM p_head_hash THEN
      RAISE EXCEPTION 'the audit head moved to seq %', head_seq
        USING ERRCODE = 'PA003', DETAIL = head_seq::text, HINT = head_hash;
    END IF;
  END IF;
  SELECT COALESCE(MAX(seq), 0) INTO message_base FROM messages WHERE session_id = p_session AND sub_agent_run_id IS NULL;
  SELECT COALESCE(MAX(seq), 0) INTO event_base FROM events WHERE session_id = p_session;
END $$;
`;

/** Rows per block of the search indexes: pk >> SEARCH_BLOCK_BITS (search.ts). */
export const SEARCH_BLOCK_BITS = 14;

/**
 * Version 6: the full-text indexes keyed by block of pks as well, (pk >> 14, ..., tsv), so that a
 * search asks for the matches of one block at a time, newest first, and stops once it has enough
 * (search.ts). A GIN index returns its matches in no useful order: for a common word, "the newest
 * 200" read every match from the table first. The search filters on role, tool and Shield decision
 * are keys too, so a filtered search reads only the rows that pass. The block key is btree_gin's
 * (a contrib extension shipped with the server, trusted: the database's owner may create it). The
 * old indexes go: the new ones answer a match on tsv alone as well, and a turn's insert updates one
 * GIN index per table.
 */
export const PG_V6 = `
CREATE EXTENSION IF NOT EXISTS btree_gin;
SET LOCAL maintenance_work_mem = '256MB';
CREATE INDEX messages_block_tsv ON messages USING GIN ((pk >> ${String(SEARCH_BLOCK_BITS)}), role, tsv) WITH (fastupdate = off);
CREATE INDEX tool_calls_block_tsv ON tool_calls USING GIN ((pk >> ${String(SEARCH_BLOCK_BITS)}), tool_name, verdict_decision, tsv)
  WITH (fastupdate = off);
DROP INDEX messages_tsv;
DROP INDEX tool_calls_tsv;
`;

/**
 * Version 7: every word of the search index in a table (lexemes.ts), so that a search expands a
 * prefix once into the words it stands for, instead of the index doing it again for every block
 * asked. The "C" collation orders words by code point: the words of a prefix are one range.
 */
export const PG_V7 = `
CREATE TABLE search_lexemes (lexeme TEXT COLLATE "C" PRIMARY KEY);
INSERT INTO search_lexemes (lexeme)
  SELECT word FROM ts_stat('SELECT tsv FROM messages') UNION SELECT word FROM ts_stat('SELECT tsv FROM tool_calls');
`;

/**
 * Version 8: the search indexes take a turn's words in a small pending list (64 kB, the least
 * PostgreSQL allows), merged into the index once it is full, instead of one insert into the index
 * per word of every row: each of those touches its own page, and after a checkpoint writes that
 * whole page to the WAL, so a turn's commit wrote ~75 kB of WAL and spent most of its server time
 * there. Merging a list's entries at once touches each word's page once for many rows. Version 2
 * turned the list off because a search reads all of it: at the default 4 MB, after a burst of
 * writes, the planner left the index for a scan of the table. 64 kB is a few pages.
 */
export const PG_V8 = `
ALTER INDEX messages_block_tsv SET (fastupdate = on, gin_pending_list_limit = 64);
ALTER INDEX tool_calls_block_tsv SET (fastupdate = on, gin_pending_list_limit = 64);
`;

export const PG_MIGRATIONS: readonly string[] = [PG_V1, PG_V2, PG_V3, PG_V4, PG_V5, PG_V6, PG_V7, PG_V8];
export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;
