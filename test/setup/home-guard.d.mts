// Types of home-guard.mjs (plain JS: bench/run.mjs imports it too).
export type Snapshot = Map<string, string>;
export function palisadeDirs(home: string): string[];
export function snapshot(dirs: readonly string[]): Snapshot;
export function differences(before: Snapshot, after: Snapshot, home: string): string[];
export function isolateHome(): { realHome: string; fakeHome: string; finish(): string[] };
export function leakMessage(realHome: string, changed: readonly string[]): string;
export default function setup(): () => void;
