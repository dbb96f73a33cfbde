import { serveCapability } from "@palisade/capability-sdk";
import { createHttpCapability } from "./capability.js";

await serveCapability(createHttpCapability(), { handleSignals: true });
