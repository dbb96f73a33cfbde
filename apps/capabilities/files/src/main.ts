// The entry the Engine runs: it turns on the code cache `make build` made, then loads the capability.
import { COMPILE_CACHE_DIR, useCompileCache } from "@palisade/capability-sdk/compile-cache";

useCompileCache(new URL(COMPILE_CACHE_DIR, import.meta.url));
await import("./serve.js");
