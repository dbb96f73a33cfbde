// Running Python's grpcio and protobuf (Debian's python3-grpcio and python3-protobuf, which
// `make deps-system` installs) next to the bridge: finding the interpreter, handing it the
// message types as a FileDescriptorSet, starting its scripts.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { create, toBinary } from "@bufbuild/protobuf";
import type { DescFile } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

export const PYTHON_DIR = fileURLToPath(new URL("./python/", import.meta.url));

/** First interpreter that has grpc and google.protobuf, or undefined. */
export function findPython(): string | undefined {
  for (const candidate of ["/usr/bin/python3", "python3"]) {
    const res = spawnSync(candidate, ["-c", "import grpc, google.protobuf, sys; print(sys.executable)"], {
      encoding: "utf8",
    });
    if (res.status === 0) return res.stdout.trim();
  }
  return undefined;
}

export const SKIP_REASON =
  "python3 with grpc and google.protobuf not found (install python3-grpcio python3-protobuf: `make deps-system`)";

/** Writes `files` and everything they import, dependencies first, as a FileDescriptorSet; returns its path. */
export function writeDescriptorSet(files: DescFile[]): string {
  const ordered: DescFile[] = [];
  const visit = (f: DescFile): void => {
    if (ordered.includes(f)) return;
    f.dependencies.forEach(visit);
    ordered.push(f);
  };
  files.forEach(visit);
  const set = create(FileDescriptorSetSchema, { file: ordered.map((f) => f.proto) });
  const path = join(mkdtempSync(join(tmpdir(), "palisade-interop-")), "descriptors.bin");
  writeFileSync(path, toBinary(FileDescriptorSetSchema, set));
  return path;
}

/** Starts `script` (in python/) with `args`; stderr is kept for failure messages. */
export function startPython(
  python: string,
  script: string,
  args: string[],
): { child: ChildProcessWithoutNullStreams; stderr: () => string } {
  const child = spawn(python, [join(PYTHON_DIR, script), ...args], {
    cwd: PYTHON_DIR,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return { child, stderr: () => stderr };
}

/** Reads the child's stdout as JSON lines until it exits; fails with its stderr if it exits non-zero. */
export function jsonLines<T>(
  child: ChildProcessWithoutNullStreams,
  stderr: () => string,
  signal: AbortSignal,
): Promise<T[]> {
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const onAbort = (): void => {
      child.kill("SIGKILL");
      reject(new Error(`python ${child.spawnargs.slice(1, 2).join(" ")} did not finish in time; stderr: ${stderr()}`));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", reject);
    child.on("close", (code) => {
      signal.removeEventListener("abort", onAbort);
      if (code !== 0) reject(new Error(`python exited with ${String(code)}: ${stderr()}`));
      else
        resolve(
          out
            .split("\n")
            .filter((l) => l.trim() !== "")
            .map((l) => JSON.parse(l) as T),
        );
    });
  });
}
