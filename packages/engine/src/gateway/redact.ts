// Upstream error answers go back to the Agent and from there to the model. Some servers and the
// proxies in front of them echo what they were sent: the key, the URL with its query (Azure's
// `api-key`), a password from the base URL. Those are cut out before the answer leaves.

/** The most of an error body read to redact it; the rest is dropped (an error is short). */
export const MAX_ERROR_BODY = 256 * 1024;
const MASK = "***";

/** Secrets of the configured endpoint that must not reach the caller. */
export function endpointSecrets(model: { baseUrl?: string; apiKey?: string }): string[] {
  const out = new Set<string>();
  if (model.apiKey) out.add(model.apiKey);
  if (model.baseUrl && URL.canParse(model.baseUrl)) {
    const url = new URL(model.baseUrl);
    for (const v of [url.password, url.username, ...url.searchParams.values()]) {
      if (v.length >= 4) {
        out.add(v);
        out.add(decodeURIComponent(v));
        out.add(encodeURIComponent(v));
      }
    }
  }
  // Longest first, so a secret that contains another is cut whole.
  return [...out].filter(Boolean).sort((a, b) => b.length - a.length);
}

/** `text` with every secret replaced by ***. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join(MASK);
  return out;
}
