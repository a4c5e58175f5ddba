/**
 * A file on disk as the Node tools read it (a scene, the files it names,
 * a world's index and chunks), checked before a byte is read and read
 * with a bound. What a folder from elsewhere may hold is not trusted:
 *
 * - only a regular file is read. A named pipe would wait for a writer for
 *   ever; /dev/zero, /dev/urandom or a socket never end; a folder is not a
 *   file. Each is refused by name and kind, through a link too;
 * - a file named as lying in a folder must lie there once every link is
 *   resolved: a link from a world's folder to /etc is refused, as the same
 *   path is refused by URL (companionUrl, chunkPathError);
 * - a file larger than its kind may hold is refused before it is read, and
 *   none is read past the size it had when opened: one that grows while
 *   read, or says a size it does not hold (the files of /proc say 0), is
 *   refused as soon as a byte past that size arrives.
 *
 * Node only: the browser build never imports it (node-scene-source.ts).
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { SplatFormatError } from './format-error';
import { allocateBytes, SplatLimitError } from './load-limits';

export interface DiskFileOptions {
  /** The most bytes a file of its kind may hold. */
  maxBytes: number;
  /** The folder the file must lie in once links are resolved (as given: it is resolved here), if any. */
  folder?: string;
  /** What the path should name, for messages: "'x' is a folder, not a scene file" (default 'a file'). */
  wanted?: string;
  /** Said after "'path' is a folder, not …", where the caller knows what was meant instead. */
  folderAdvice?: string;
  /** Once it aborts, the read stops and rejects with its reason. */
  signal?: AbortSignal;
}

/** A file checked: its path with every link resolved, and its size. */
export interface CheckedFile {
  real: string;
  size: number;
}

/** Pieces a file is streamed in: large enough that a read costs little, small enough to hold a few. */
const PIECE_BYTES = 1 << 20;

/**
 * O_NONBLOCK: a named pipe put in place of the file between its check and
 * its opening opens at once instead of waiting for a writer (it is then
 * refused by its kind). No effect on a regular file. Absent on Windows,
 * which has no such pipes on its file system.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

const count = (n: number): string => n.toLocaleString('en-US');

/** What a path that is not a regular file is, in words. */
function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a folder';
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}

/** `path` refused for what it is: "'a.webp' is a link to '/dev/zero', a character device, not a file". */
function notAFile(path: string, real: string, isLink: boolean, info: Stats, options: DiskFileOptions): SplatFormatError {
  const link = isLink ? ` a link to '${real}',` : '';
  const advice = info.isDirectory() && options.folderAdvice ? options.folderAdvice : 'only regular files are read';
  return new SplatFormatError(`'${path}' is${link} ${kindOf(info)}, not ${options.wanted ?? 'a file'}: ${advice}`);
}

function tooLarge(path: string, size: number, maxBytes: number, more = ''): SplatLimitError {
  return new SplatLimitError(`'${path}' is ${count(size)} bytes${more}: more than the ${count(maxBytes)} it can take`);
}

/** `error` of the file system (fs.realpath's, fs.stat's) told with the path it was about. */
function missing(path: string, error: unknown): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new Error(`There is no file at '${path}'`);
  if (code === 'ELOOP') return new SplatFormatError(`'${path}' is a link in a loop of links`);
  return error as Error;
}

/** `real` lies in the folder whose real path is `folder` (or is below it). */
const isInside = (real: string, folder: string): boolean => real.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);

/**
 * Checks the file at `path` without opening it (so a named pipe never
 * waits): it exists, it is a regular file (through links), it lies in
 * `options.folder` once links are resolved, and it holds at most
 * `options.maxBytes`. Each refusal names the path and says what it is.
 */
export async function checkDiskFile(path: string, options: DiskFileOptions): Promise<CheckedFile> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    throw missing(path, error);
  }
  const info = await stat(real).catch((error: unknown) => {
    throw missing(path, error);
  });
  if (!info.isFile()) {
    const isLink = await lstat(path).then((own) => own.isSymbolicLink(), () => false);
    throw notAFile(path, real, isLink, info, options);
  }
  // After its kind: a link to /dev/zero is told as what it is, wherever it leads.
  if (options.folder !== undefined) {
    let folder: string;
    try {
      folder = await realpath(options.folder);
    } catch (error) {
      throw missing(options.folder, error);
    }
    if (!isInside(real, folder)) {
      throw new SplatFormatError(`'${path}' leads out of its folder: it is '${real}' once links are resolved, and only files in '${options.folder}' or below are read`);
    }
  }
  if (info.size > options.maxBytes) throw tooLarge(path, info.size, options.maxBytes);
  return { real, size: info.size };
}

/**
 * The file at `path`, checked (checkDiskFile): its size, and its bytes in
 * pieces of at most 1 MiB, never more than that size. It is opened when
 * the first piece is asked for (a reader that never starts holds nothing
 * open) and closed when the pieces end or their reader stops.
 */
export async function openDiskFile(path: string, options: DiskFileOptions): Promise<{ size: number; chunks: AsyncGenerator<Uint8Array> }> {
  const { real, size } = await checkDiskFile(path, options);
  return { size, chunks: pieces(path, real, size, options) };
}

/**
 * All of the file at `path`, checked (checkDiskFile) and read into one
 * buffer of the size it had when checked: at most `options.maxBytes`
 * whatever the file does meanwhile.
 */
export async function readDiskFile(path: string, options: DiskFileOptions): Promise<Uint8Array> {
  const { size, chunks } = await openDiskFile(path, options);
  const bytes = allocateBytes(size, `'${path}'`);
  let at = 0;
  for await (const piece of chunks) {
    bytes.set(piece, at);
    at += piece.length;
  }
  // A file that shrank while read: what it held.
  return at === size ? bytes : bytes.subarray(0, at);
}

/**
 * The first `size` bytes of the file at `real` (checked as `path`) in
 * pieces, then one more read that must find its end: a byte past `size`
 * refuses the file (it grew, or its size was not what it holds). What was
 * opened is checked again, since the path may have changed since its check.
 */
async function* pieces(path: string, real: string, size: number, options: DiskFileOptions): AsyncGenerator<Uint8Array> {
  const { signal } = options;
  signal?.throwIfAborted();
  const handle = await open(real, OPEN_FLAGS);
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notAFile(path, real, real !== resolve(path), info, options);
    let at = 0;
    while (at < size) {
      signal?.throwIfAborted();
      const piece = new Uint8Array(Math.min(PIECE_BYTES, size - at));
      const { bytesRead } = await handle.read(piece, 0, piece.length, at);
      if (bytesRead === 0) return; // it shrank: its end came early
      at += bytesRead;
      yield bytesRead === piece.length ? piece : piece.subarray(0, bytesRead);
    }
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(new Uint8Array(1), 0, 1, size);
    if (bytesRead > 0) {
      throw new SplatFormatError(`'${path}' holds more than the ${count(size)} bytes its size said: a file that grows while it is read, or that does not hold what its size says, is not read`);
    }
  } finally {
    await handle.close();
  }
}
