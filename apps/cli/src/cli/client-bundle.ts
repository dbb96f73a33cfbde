// Whether dist/bundle/ (the client commands in one bundled file, made by `make build` after tsc)
// still matches the code it was made from: the same check as the Engine's and the Agent's bundles.
export { BUNDLE_INPUTS_FILE, freshBundleEntry } from "@palisade/agent/bundle";
export type { BundleInputs } from "@palisade/agent/bundle";
