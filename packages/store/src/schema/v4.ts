/**
 * Schema version 4: whether a session's model was chosen (asked for when it started) or is the
 * Engine's configured one, recorded for display. A chosen model stays with the session; a
 * recorded one follows the configuration (a session resumed after the model changed uses the new
 * one, and records it). Sessions stored before kept a model only when one was asked for.
 */
export const V4 = `
ALTER TABLE sessions ADD COLUMN model_chosen INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET model_chosen = 1 WHERE model <> '';
`;
