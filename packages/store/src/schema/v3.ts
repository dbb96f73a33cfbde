/**
 * Schema version 3: FTS5 prefix indexes. Without one, `abc*` merges the doclists of every term
 * starting with "abc" on each query (hundreds of ms at a million messages); with `prefix='2 3 4'`
 * a prefix of 2 to 4 characters reads one precomputed doclist, and a longer one (fewer, rarer
 * terms) still merges. FTS5 options cannot be altered: the tables are recreated and rebuilt from
 * the external content (the triggers of v2 keep working, they name the tables).
 */
export const V3 = `
DROP TABLE messages_fts;
CREATE VIRTUAL TABLE messages_fts USING fts5 (
  content, content = 'messages', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4'
);
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');

DROP TABLE tool_calls_fts;
CREATE VIRTUAL TABLE tool_calls_fts USING fts5 (
  tool_name, arguments_json, result,
  content = 'tool_calls', content_rowid = 'pk', tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3 4'
);
INSERT INTO tool_calls_fts (tool_calls_fts) VALUES ('rebuild');
`;
