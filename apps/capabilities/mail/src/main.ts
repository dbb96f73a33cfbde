import { serveCapability } from "@palisade/capability-sdk";
import { createMailCapability } from "./capability.js";

await serveCapability(createMailCapability(), { handleSignals: true });
