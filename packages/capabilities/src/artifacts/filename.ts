/**
 * An artifact's file name as it is stored and shown: a capability (or an MCP server, or the model
 * through one) chooses it, so it may carry what makes a name lie. A right-to-left override turns
 * `evil\u202etxt.exe` into what reads as "evilexe.txt"; other bidi controls, zero-width and
 * control characters hide or reorder parts; a path separator would name another directory.
 * Each becomes "_", so the name shows what the file is; the text is NFC-normalized.
 */
const UNSAFE =
  // eslint-disable-next-line no-control-regex -- control characters are what this replaces
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}/\\]/gu;

/** At most this many characters (a file system's name limit is 255 bytes). */
const MAX_LENGTH = 200;

export function safeArtifactName(name: string): string {
  const safe = name.normalize("NFC").replace(UNSAFE, "_").trim();
  const cut = [...safe].slice(0, MAX_LENGTH).join("");
  return cut === "" || cut === "." || cut === ".." ? "artifact" : cut;
}
