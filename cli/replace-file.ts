/**
 * Writes a file so that what was there is never lost: the bytes go to a
 * new file beside it (same folder, so the rename cannot cross file
 * systems), flushed to the disk, and only then renamed over it, which
 * POSIX makes one step. A write that fails (a full disk, a quota) removes
 * its partial file and leaves the old one as it was. The new file gets the
 * old one's permissions.
 */
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { FileHandle } from 'node:fs/promises';

/** How the bytes go into the open file: FileHandle.writeFile, unless a test fails it on purpose. */
export type WriteAll = (handle: FileHandle, bytes: Uint8Array) => Promise<void>;

const writeAll: WriteAll = (handle, bytes) => handle.writeFile(bytes);

/** The name the bytes are written under first: hidden, beside `path`, unique to this process and call. */
export function partialName(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now().toString(36)}.partial`);
}

/** Writes `bytes` as `path`, replacing it only once they are all on disk; throws, saying the old file is kept, when they cannot be. */
export async function replaceFile(path: string, bytes: Uint8Array, write: WriteAll = writeAll): Promise<void> {
  const partial = partialName(path);
  const mode = await stat(path).then((s) => s.mode & 0o7777, () => undefined);
  let handle: FileHandle | undefined;
  try {
    handle = await open(partial, 'wx', mode ?? 0o666);
    await write(handle, bytes);
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(partial, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(partial, { force: true });
    const kept = mode === undefined ? 'nothing was written' : `'${path}' is as it was`;
    throw new Error(`could not write '${path}': ${(error as Error).message}; ${kept}`);
  }
}
