// Test doubles of the Engine's ports, for tests that start an Engine without a database or a
// policy file (`@palisade/engine/testing`); the Engine itself never uses them.
export { MemoryStore } from "./adapters/memory-store.js";
export { PolicyShield } from "./adapters/policy-shield.js";
