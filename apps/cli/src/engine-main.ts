#!/usr/bin/env node
// The background Engine that `palisade chat`, `run` and `engine start` start (spawn.ts), with the
// same command line as `palisade … engine start --foreground`, without loading the rest of the CLI.
// It runs `make build`'s one-file bundle of engine/foreground.js while that is fresh, else the
// compiled modules. Node's compile cache (see main.ts) is on before either is loaded.
import { enableCompileCache } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";

enableCompileCache(fileURLToPath(new URL("../.cache/node-compile", import.meta.url)));
const { freshBundleEntry } = await import("@palisade/agent/bundle");
const bundle = freshBundleEntry(
  fileURLToPath(new URL("./engine-bundle", import.meta.url)),
  fileURLToPath(new URL("../../..", import.meta.url)),
);
await import(bundle ? pathToFileURL(bundle).href : "./engine/foreground.js");
