import { appendFile, readFile } from "node:fs/promises";

/** Messages typed in earlier chats (↑ recalls them). Off-the-record messages are never written. */
export async function loadInputHistory(file: string, max = 500): Promise<string[]> {
  try {
    const lines = (await readFile(file, "utf8")).split("\n").filter(Boolean).slice(-max);
    return lines.flatMap((l) => {
      try {
        const v: unknown = JSON.parse(l);
        return typeof v === "string" ? [v] : [];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

export async function appendInputHistory(file: string, text: string): Promise<void> {
  await appendFile(file, `${JSON.stringify(text)}\n`, { mode: 0o600 });
}
