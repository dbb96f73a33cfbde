// Child process of bench/engine.mjs: the user's client of benchmark 1, in its own process as the
// chat is: sends one message to the Engine at argv[2] (client token argv[3]) and reads the turn's events (every tool
// call's ACTION_* and SHIELD_VERDICT) until the turn ends, then reports how many over IPC.
import { createClient } from "@palisade/protocol";
import { ClientService } from "@palisade/protocol/pipeline";

const client = createClient(ClientService, process.argv[2], { bearerToken: process.argv[3] });
let events = 0;
for await (const _ of client.sendMessage({ content: "bench" })) events++;
client.close();
process.send?.({ events }, () => process.exit(0));
