/**
 * The small files the commands are given beside a scene (camera files,
 * views files), read as the scene is (src/io/disk-file.ts): a named pipe or
 * a device given as one is refused by name instead of waited on or read
 * for ever, and none is read past what a file of its kind holds.
 */
import { parseCameraFile, type CameraFile } from '../src/app/camera/camera-file';
import { MAX_VIEWS_FILE_CHARS } from '../src/app/views/views-file';
import { readDiskFile } from '../src/io/disk-file';

/**
 * The most bytes of a camera file: one is about 300 (a size, a lens, three
 * vectors, a background); 64 KiB is room for any spacing, and no more.
 */
export const MAX_CAMERA_FILE_BYTES = 64 * 1024;

/** The text of the file at `path`, at most `maxBytes` of UTF-8 (a byte that is not is replaced, as readFileSync's 'utf8' does). */
async function readText(path: string, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readDiskFile(path, { maxBytes, wanted: 'a file of text' }));
}

/** The camera file at `path`, read and parsed. */
export async function readCameraFile(path: string): Promise<CameraFile> {
  return parseCameraFile(await readText(path, MAX_CAMERA_FILE_BYTES));
}

/** The text of the views file at `path` (a character of it is at most 4 bytes of UTF-8). */
export function readViewsText(path: string): Promise<string> {
  return readText(path, 4 * MAX_VIEWS_FILE_CHARS);
}
