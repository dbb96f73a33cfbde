/**
 * The status line's pieces cut to one row of `width` columns. What matters most stays: the
 * running turn and the connection; then the model, the title (shortened with …), the badges,
 * the token counts. Pure, so every width can be tested.
 */
export interface StatusInput {
  width: number;
  turn: { spinner: string; verb: string; seconds: number } | undefined;
  model: string;
  title: string;
  otr: boolean;
  demo: boolean;
  tokens: string;
  connection: string;
}

export interface StatusParts {
  turn: string;
  model: string;
  title: string;
  otr: string;
  demo: string;
  tokens: string;
  connection: string;
}

const cut = (s: string, n: number): string => (s.length <= n ? s : n <= 1 ? "" : `${s.slice(0, n - 1)}…`);

export function statusParts(i: StatusInput): StatusParts {
  const connection = i.connection;
  const turnLong = i.turn ? `${i.turn.spinner} ${i.turn.verb} ${i.turn.seconds}s · Esc cancels  ` : "";
  const turnShort = i.turn ? `${i.turn.spinner} ${i.turn.verb} ${i.turn.seconds}s  ` : "";
  const tokens = `${i.tokens}  `;
  const otr = i.otr ? " OTR " : "";
  const demoLong = i.demo ? " DEMO · scripted model " : "";
  const demoShort = i.demo ? " DEMO " : "";
  const room = (used: string[]): number => i.width - used.reduce((n, s) => n + s.length, 0) - 1;
  const turn = room([turnLong, connection, i.model, demoShort]) >= 0 ? turnLong : turnShort;
  // The model's name, then the title in what is left; the badges and the tokens only when whole.
  let left = room([turn, connection]);
  const model = cut(i.model, Math.max(0, left));
  left -= model.length;
  const withTitle = left - 3 - otr.length - demoShort.length;
  const title = withTitle >= 4 ? cut(i.title, withTitle) : "";
  left -= title ? title.length + 3 : 0;
  const otrShown = otr.length <= left ? otr : "";
  left -= otrShown.length;
  const demo = demoLong.length <= left ? demoLong : demoShort.length <= left ? demoShort : "";
  left -= demo.length;
  const tokensShown = tokens.length <= left ? tokens : "";
  return { turn, model, title, otr: otrShown, demo, tokens: tokensShown, connection };
}
