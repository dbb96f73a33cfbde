import { serveCapability } from "@palisade/capability-sdk";
import { createFilesCapability } from "./capability.js";

await serveCapability(createFilesCapability(), { handleSignals: true });
