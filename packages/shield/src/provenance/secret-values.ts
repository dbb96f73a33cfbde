/**
 * The secret values in content: what follows a secret-named key (`password: …`, `API_KEY=…`),
 * the password of a connection string, private-key bodies and well-known token formats. The
 * values, not the whole text, are what must not leave: a mail that says "password" is not one.
 */
const ASSIGNMENT =
  /\b[\w.-]{0,40}(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|token|private[_-]?key|credentials?|auth)[\w.-]{0,40}["']?\s{0,8}[:=]\s{0,8}["']?([^\s"'<>,;]{6,256})/gi;
const CONNECTION = /\b[a-z][a-z0-9+.-]{0,15}:\/\/[^:\s/@]{1,128}:([^@\s/]{4,256})@/gi;
const TOKEN =
  /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{22,}|glpat-[A-Za-z0-9_-]{20,}|sk-[A-Za-z0-9_-]{20,}|xox[abprse]-[A-Za-z0-9-]{10,}|sk_live_[0-9a-zA-Z]{16,}|AKIA[0-9A-Z]{16}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,}|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})/g;
const PEM = /-----BEGIN [A-Z ]*PRIVATE KEY-----([\s\S]{16,}?)-----END/g;
/** Placeholders are not secrets: `${DB_PASSWORD}`, `<your key>`, `****`, `changeme`. */
const PLACEHOLDER =
  /^(\$\{?|<|\*{3}|x{4,}$|changeme$|example|your[_-]|null$|none$|true$|false$|process\.env|os\.environ)/i;

export function secretValues(text: string): string[] {
  const out = new Set<string>();
  const put = (v: string | undefined): void => {
    if (v === undefined) return;
    const t = v.replace(/["',;]+$/, "");
    if (t.length >= 6 && !PLACEHOLDER.test(t)) out.add(t.toLowerCase());
  };
  for (const m of text.matchAll(ASSIGNMENT)) put(m[1]);
  for (const m of text.matchAll(CONNECTION)) put(m[1]);
  for (const m of text.matchAll(TOKEN)) put(m[0]);
  for (const m of text.matchAll(PEM)) {
    // a key body is too long to match whole once re-wrapped: its lines are looked for
    for (const line of (m[1] ?? "").split(/\s+/)) if (line.length >= 16) put(line);
  }
  return [...out];
}

/**
 * Content that is secret as a whole (a key file, a credentials store): its tokens that look like
 * key material (a digit, or 12+ characters) are secret values.
 */
export function wholeSecretValues(text: string): string[] {
  const out = new Set(secretValues(text));
  for (const m of text.matchAll(/[A-Za-z0-9_+/=.-]{8,}/g)) {
    const t = m[0];
    if (/\d/.test(t) || t.length >= 12) out.add(t.toLowerCase());
  }
  return [...out];
}
