// Readable sub-agent names, unique for the Engine's lifetime: a pool of short names, then the
// same names with a round number (ada, …, zuse, ada-2, …).
export const NAME_POOL = [
  "ada",
  "babbage",
  "curie",
  "darwin",
  "euler",
  "faraday",
  "gauss",
  "hopper",
  "hypatia",
  "kepler",
  "lovelace",
  "maxwell",
  "noether",
  "ohm",
  "pascal",
  "planck",
  "ramanujan",
  "shannon",
  "tesla",
  "turing",
  "volta",
  "wiles",
  "yalow",
  "zuse",
] as const;

export class NamePool {
  private next = 0;

  constructor(private readonly pool: readonly string[] = NAME_POOL) {
    if (pool.length === 0) throw new Error("NamePool needs at least one name");
  }

  /** The next unused name. */
  take(): string {
    const i = this.next++;
    const base = this.pool[i % this.pool.length] ?? "agent";
    const round = Math.floor(i / this.pool.length) + 1;
    return round === 1 ? base : `${base}-${String(round)}`;
  }
}
