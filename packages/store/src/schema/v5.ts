/**
 * Schema version 5: the provenance label of each tool call's result (how far the Engine trusted
 * it when it was delivered: workspace, untrusted, secret), so a resumed session labels its
 * history as it was delivered, and `sessions show`/export show it. '' for calls stored before
 * (and for calls whose result was never delivered): those are labelled again from the tool.
 */
export const V5 = `
ALTER TABLE tool_calls ADD COLUMN result_trust TEXT NOT NULL DEFAULT '';
`;
