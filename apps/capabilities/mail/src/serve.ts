import { serveCapability } from "@palisade/capability-sdk";
import { createMailCapability } from "./capability.js";

// In the Engine's sandbox there is no network but the egress proxy, which it names here.
const proxy = process.env.PALISADE_EGRESS_PROXY;
await serveCapability(createMailCapability(proxy ? { proxy } : {}), { handleSignals: true });
