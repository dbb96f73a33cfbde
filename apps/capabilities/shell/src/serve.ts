import { serveCapability } from "@palisade/capability-sdk";
import { createShellCapability } from "./capability.js";

await serveCapability(createShellCapability(), { handleSignals: true });
