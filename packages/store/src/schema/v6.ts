/**
 * Schema version 6: where each tool call happened in its message's text (how many UTF-16 code
 * units of the content came before it), so a stored turn reads back with its text and its calls
 * in the order they happened. Calls stored before have 0: they show before the text, as before.
 */
export const V6 = `
ALTER TABLE tool_calls ADD COLUMN text_offset INTEGER NOT NULL DEFAULT 0;
`;
