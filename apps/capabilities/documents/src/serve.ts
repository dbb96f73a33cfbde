import { serveCapability } from "@palisade/capability-sdk";
import { createDocumentsCapability } from "./capability.js";

await serveCapability(createDocumentsCapability(), { handleSignals: true });
