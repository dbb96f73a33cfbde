import { readFileSync, readdirSync } from "node:fs";

/**
 * Processes (other than this one) whose command line or environment mentions `needle`, e.g. a
 * data directory: an Engine has it in its arguments, its Agent in its environment (the socket).
 */
export function processesMentioning(needle: string): { pid: number; cmdline: string }[] {
  const out: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const read = (file: string): string => {
      try {
        return readFileSync(`/proc/${entry}/${file}`, "utf8").replace(/\0/g, " ");
      } catch {
        return "";
      }
    };
    const cmdline = read("cmdline");
    if (cmdline === "") continue; // gone, or a zombie
    if (cmdline.includes(needle) || read("environ").includes(needle)) out.push({ pid: Number(entry), cmdline });
  }
  return out;
}
