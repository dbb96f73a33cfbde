// One Engine per data directory: the Engine's lock (see @palisade/config/discovery) as the CLI
// uses it, and the exit code of an Engine process that found it taken.
export { engineLockHolder, LOCK_FILE, tryLockEngine } from "@palisade/config/discovery";
export type { EngineLock } from "@palisade/config/discovery";

/** The exit code of an Engine process that found another holding the lock (EX_TEMPFAIL). */
export const ENGINE_LOCKED_EXIT = 75;
