import {
  close,
  closeSync,
  constants,
  createReadStream,
  fstat,
  fstatSync,
  open as openFd,
  openSync,
  read as readFd,
  readSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { promisify } from "node:util";
import { ToolError } from "@palisade/capability-sdk";
import { createInterface } from "node:readline";

/** Bytes sniffed to decide whether a file is text. */
export const SNIFF_BYTES = 8192;
/** Lines returned by one read_file call when `limit` is not given. */
export const DEFAULT_PAGE_LINES = 2000;
/** Largest text returned by one read_file call; the page ends early past it. */
export const MAX_PAGE_BYTES = 256 * 1024;
/** Longest single line returned; longer lines are cut with a marker. */
export const MAX_LINE_CHARS = 4000;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A sample looks binary when it has a NUL byte, is not valid UTF-8 (allowing a multi-byte
 * sequence cut at the end of the sample), or is more than 10% control characters.
 */
export function looksBinary(sample: Uint8Array, complete: boolean): boolean {
  if (sample.includes(0)) return true;
  let text: string;
  try {
    text = utf8.decode(complete ? sample : trimPartialUtf8(sample));
  } catch {
    return true;
  }
  let control = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 27) control++;
  }
  return text.length > 0 && control / text.length > 0.1;
}

/** Drops an incomplete UTF-8 sequence at the end of a sample (at most 3 bytes). */
function trimPartialUtf8(bytes: Uint8Array): Uint8Array {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back] ?? 0;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    if (b >= 0xc0) {
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
      return need > back ? bytes.subarray(0, bytes.length - back) : bytes;
    }
    return bytes;
  }
  return bytes;
}

/** Reads the first SNIFF_BYTES of a file and reports whether it looks binary. */
export async function isBinaryFile(file: string, size: number): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const buf = new Uint8Array(Math.min(SNIFF_BYTES, size));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return looksBinary(buf.subarray(0, bytesRead), bytesRead >= size);
  } finally {
    await handle.close();
  }
}

export interface Page {
  /** Lines joined with "\n" (a trailing newline is not added). */
  content: string;
  /** 1-based number of the first line returned. */
  offset: number;
  linesReturned: number;
  /** Total number of lines, when the read reached the end of the file. */
  totalLines: number | undefined;
  /** `offset` for the next page, when there is more. */
  nextOffset: number | undefined;
  /** Lines that were cut at MAX_LINE_CHARS. */
  longLinesCut: number;
}

/** Builds one page from a file's lines, in order; the same rules for a streamed and a read file. */
class PageBuilder {
  private readonly out: string[] = [];
  private bytes = 0;
  private lineNo = 0;
  private longLinesCut = 0;
  private stoppedEarly = false;

  constructor(
    private readonly offset: number,
    private readonly limit: number,
  ) {}

  /** Takes the next line; false once the page is full (the caller stops reading). */
  add(raw: string): boolean {
    this.lineNo++;
    if (this.lineNo < this.offset) return true;
    if (this.out.length >= this.limit || this.bytes >= MAX_PAGE_BYTES) {
      this.stoppedEarly = true;
      return false;
    }
    let line = raw;
    if (line.length > MAX_LINE_CHARS) {
      line = `${line.slice(0, MAX_LINE_CHARS)} … [line cut: ${line.length} characters]`;
      this.longLinesCut++;
    }
    this.out.push(line);
    this.bytes += Buffer.byteLength(line) + 1;
    return true;
  }

  page(): Page {
    const returned = this.out.length;
    return {
      content: this.out.join("\n"),
      offset: this.offset,
      linesReturned: returned,
      totalLines: this.stoppedEarly ? undefined : this.lineNo,
      nextOffset: this.stoppedEarly ? this.offset + returned : undefined,
      longLinesCut: this.longLinesCut,
    };
  }
}

/**
 * Streams `file` and returns lines `offset`..`offset+limit-1` (1-based), stopping early at
 * MAX_PAGE_BYTES so a huge file never loads into memory.
 */
export async function readPage(file: string, offset: number, limit: number, signal?: AbortSignal): Promise<Page> {
  const stream = createReadStream(file, { encoding: "utf8", signal });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const page = new PageBuilder(offset, limit);
  try {
    for await (const raw of lines) if (!page.add(raw)) break;
  } finally {
    lines.close();
    stream.destroy();
  }
  return page.page();
}

/** The line breaks readline knows (crlfDelay: Infinity): CRLF, LF, and a lone CR. */
const LINE_BREAK = /\r\n|\n|\r/;

/** `readPage` over text already in memory, with the same lines and the same page. */
export function pageOfText(text: string, offset: number, limit: number): Page {
  const lines = text.split(LINE_BREAK);
  if (lines.at(-1) === "") lines.pop(); // a final line break ends the last line, it starts none
  const page = new PageBuilder(offset, limit);
  for (const line of lines) if (!page.add(line)) break;
  return page.page();
}

/**
 * How a small file is opened: never waiting (a FIFO or device swapped in since the stat opens at
 * once, a conflicting lease fails with EWOULDBLOCK instead of waiting for its holder) and never
 * through a symlink in the last component (the path is a real path: it has none, unless one was
 * swapped in since it was checked).
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | constants.O_NOFOLLOW;

// Descriptor calls for the small-file read: fs/promises would wrap the descriptor in a FileHandle.
const openAsync = promisify(openFd);
const readAsync = promisify(readFd);
const closeAsync = promisify(close);
const fstatAsync = promisify(fstat);

/** Files up to this size are read in one call (open, read, close) instead of streamed. */
export const SMALL_FILE_BYTES = MAX_PAGE_BYTES;

/** What `readTextFile` knows of the file from its stat. */
export interface FileInfo {
  size: number;
  dev: number;
}

/**
 * The page of a text file, or `binary` when the file looks binary. A small file costs one open
 * and one read (most files a model reads); a larger one is sniffed, then streamed. A small file
 * on `localDevice` (the workspace's device, when its filesystem is local) is read synchronously.
 */
export async function readTextFile(
  file: string,
  info: FileInfo,
  offset: number,
  limit: number,
  signal?: AbortSignal,
  localDevice?: number,
): Promise<Page | "binary"> {
  const { size } = info;
  if (size <= SMALL_FILE_BYTES) {
    let data =
      localDevice !== undefined && info.dev === localDevice ? readSmallLocal(file, size, localDevice) : undefined;
    if (data === undefined) {
      const fd = await openAsync(file, OPEN_FLAGS);
      try {
        if (!(await fstatAsync(fd)).isFile()) throw replaced(file);
        // One byte more than its size tells a file that grew since its stat (then it is streamed).
        const buf = Buffer.allocUnsafe(size + 1);
        const { bytesRead } = await readAsync(fd, buf, 0, buf.length, 0);
        data = buf.subarray(0, bytesRead);
      } finally {
        await closeAsync(fd);
      }
    }
    signal?.throwIfAborted();
    if (data.length <= size) {
      if (looksBinary(data.subarray(0, SNIFF_BYTES), data.length <= SNIFF_BYTES)) return "binary";
      return pageOfText(data.toString("utf8"), offset, limit);
    }
  }
  if (await isBinaryFile(file, size)) return "binary";
  return readPage(file, offset, limit, signal);
}

/**
 * Reads up to `size` + 1 bytes of `file` without the thread pool, or returns undefined when the
 * thread-pool path must decide. Blocking the event loop is safe here because nothing in it can
 * wait on another process or a server: the caller's stat found a regular file on the workspace's
 * device, whose filesystem is local (Workspace.localDevice); the open cannot wait (OPEN_FLAGS);
 * the descriptor is read only once fstat says it is a regular file on that same device. What
 * remains is a local disk read of at most 256 KiB. (A mount of a remote filesystem created inside
 * the workspace between the stat and the open could still make the open wait.)
 */
function readSmallLocal(file: string, size: number, device: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, OPEN_FLAGS);
  } catch {
    return undefined; // gone, a lease, a swapped symlink: the thread-pool path reports it
  }
  try {
    const now = fstatSync(fd);
    if (!now.isFile()) throw replaced(file);
    if (now.dev !== device) return undefined;
    const buf = Buffer.allocUnsafe(size + 1);
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0));
  } finally {
    closeSync(fd);
  }
}

function replaced(file: string): ToolError {
  return new ToolError(`"${file}" is no longer a regular file (it was replaced while being read); read it again`, {
    code: "not_a_file",
  });
}
