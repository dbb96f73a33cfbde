/**
 * Schema version 1: the core tables. Never edit a released migration: add a new version instead.
 * The same SQL is kept as test/fixtures/v1.sql (with rows) to test upgrades from a real v1 database.
 */
export const V1 = `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL DEFAULT '',
  title_source TEXT NOT NULL DEFAULT 'none' CHECK (title_source IN ('none', 'first_message', 'auto', 'user')),
  mode TEXT NOT NULL DEFAULT 'normal' CHECK (mode IN ('normal', 'heartbeat')),
  workspace TEXT NOT NULL DEFAULT '',
  model TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  message_count INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_updated ON sessions (updated_at, id);
CREATE INDEX sessions_created ON sessions (created_at, id);
CREATE INDEX sessions_title ON sessions (title COLLATE NOCASE, id);

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
  started_at INTEGER NOT NULL,
  ended_at INTEGER
);
CREATE INDEX sub_agent_runs_session ON sub_agent_runs (session_id, started_at);
CREATE INDEX sub_agent_runs_parent ON sub_agent_runs (parent_message_id);

CREATE TABLE messages (
  pk INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  sub_agent_run_id TEXT REFERENCES sub_agent_runs (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
  content TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  parent_id TEXT REFERENCES messages (id) ON DELETE CASCADE,
  tool_call_id TEXT,
  input_tokens INTEGER,
  output_tokens INTEGER,
  cache_read_tokens INTEGER,
  cache_write_tokens INTEGER
);
CREATE UNIQUE INDEX messages_session_seq ON messages (session_id, seq) WHERE sub_agent_run_id IS NULL;
CREATE UNIQUE INDEX messages_run_seq ON messages (sub_agent_run_id, seq) WHERE sub_agent_run_id IS NOT NULL;
CREATE INDEX messages_parent ON messages (parent_id) WHERE parent_id IS NOT NULL;

CREATE TABLE tool_calls (
  pk INTEGER PRIMARY KEY,
  call_id TEXT NOT NULL,
  message_id TEXT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  sub_agent_run_id TEXT REFERENCES sub_agent_runs (id) ON DELETE CASCADE,
  sub_agent_name TEXT NOT NULL DEFAULT '',
  tool_name TEXT NOT NULL,
  arguments_json TEXT NOT NULL DEFAULT '{}',
  verdict_decision TEXT CHECK (verdict_decision IN ('allow', 'block', 'escalate')),
  verdict_tier INTEGER,
  verdict_confidence REAL,
  verdict_reason TEXT,
  verdict_rule_ids TEXT,
  verdict_evaluation_us INTEGER,
  approval_decision TEXT CHECK (approval_decision IN ('allow_once', 'allow_session', 'deny', 'timeout')),
  approval_by TEXT,
  approval_at INTEGER,
  result TEXT,
  is_error INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER,
  artifacts_json TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  completed_at INTEGER,
  UNIQUE (message_id, call_id)
);
CREATE INDEX tool_calls_session ON tool_calls (session_id, created_at);
CREATE INDEX tool_calls_run ON tool_calls (sub_agent_run_id) WHERE sub_agent_run_id IS NOT NULL;
CREATE INDEX tool_calls_created ON tool_calls (created_at);

CREATE TABLE events (
  pk INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  message_id TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL,
  payload TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  UNIQUE (session_id, seq)
);
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only: rows cannot be updated'); END;

CREATE TABLE memory (
  pk INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  message_id TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL,
  summary TEXT NOT NULL DEFAULT '',
  compacted_messages INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
);
CREATE INDEX memory_session ON memory (session_id, pk);

CREATE TABLE artifacts (
  id TEXT PRIMARY KEY,
  session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,
  owner TEXT NOT NULL DEFAULT '',
  call_id TEXT,
  filename TEXT NOT NULL,
  mime_type TEXT NOT NULL DEFAULT 'application/octet-stream',
  size_bytes INTEGER NOT NULL,
  sha256 TEXT,
  path TEXT,
  data BLOB,
  created_at INTEGER NOT NULL,
  expires_at INTEGER
);
CREATE INDEX artifacts_session ON artifacts (session_id);
CREATE INDEX artifacts_expires ON artifacts (expires_at) WHERE expires_at IS NOT NULL;
`;
