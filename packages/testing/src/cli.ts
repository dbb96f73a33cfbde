#!/usr/bin/env node
// Runs the scripted model server on its own, for the offline demo and manual tests:
//   palisade-scripted-model [--port 8089] [--host 127.0.0.1] [--script script.json]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { scriptFromJson } from "./script-file.js";
import { startScriptedServer } from "./server.js";

const { values } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    host: { type: "string", default: "127.0.0.1" },
    script: { type: "string" },
  },
});
let options = {};
if (values.script) {
  try {
    options = scriptFromJson(JSON.parse(readFileSync(values.script, "utf8")), values.script);
  } catch (err) {
    process.stderr.write(`palisade-scripted-model: ${(err as Error).message}\n`);
    process.exit(2);
  }
} else {
  options = scriptFromJson({});
}
const server = await startScriptedServer({ ...options, port: Number(values.port), host: values.host });
process.stdout.write(`scripted model listening: OPENAI_BASE_URL=${server.baseURL}\n`);
const stop = (): void => void server.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
