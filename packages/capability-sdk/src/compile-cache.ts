// Kept apart from the SDK's index (its own export, `@palisade/capability-sdk/compile-cache`): a
// capability's entry imports it first, before grpc-js, protobuf-es and ajv are loaded, so that
// they are loaded with the cache.
import { existsSync } from "node:fs";
import { constants, enableCompileCache } from "node:module";
import { fileURLToPath } from "node:url";

/** The directory, beside a capability's compiled entry, that `make build` fills with V8 code cache. */
export const COMPILE_CACHE_DIR = "compile-cache";

/**
 * Loads the modules imported from now on with the V8 code cache in `dir`, when that directory
 * exists: a (re)start then compiles less of grpc-js, protobuf-es, ajv and the capability itself.
 * `make build` makes the directory and fills it (scripts/compile-cache.mjs of this package), so
 * what a capability loads code from is written by the build, never by another capability: a
 * sandboxed capability sees it read-only (what Node would add to it at exit is dropped), and a
 * capability never creates it at run time. Node checks each entry against its module's source
 * and its own version, so a stale entry is compiled afresh, never run.
 * Returns whether the cache is used.
 */
export function useCompileCache(dir: string | URL): boolean {
  const path = dir instanceof URL ? fileURLToPath(dir) : dir;
  if (!existsSync(path)) return false;
  const { status } = enableCompileCache(path);
  return status === constants.compileCacheStatus.ENABLED || status === constants.compileCacheStatus.ALREADY_ENABLED;
}
