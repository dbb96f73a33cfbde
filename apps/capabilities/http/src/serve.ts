import { serveCapability } from "@palisade/capability-sdk";
import { createHttpCapability } from "./capability.js";

// In the Engine's sandbox there is no network but the egress proxy, which it names here.
const proxy = process.env.PALISADE_EGRESS_PROXY;
await serveCapability(createHttpCapability(proxy ? { proxy } : {}), { handleSignals: true });
