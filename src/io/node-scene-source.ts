/**
 * Node entry to the scene loader, for the command-line tools and the
 * benchmarks: a scene file on disk, with the files it names beside it (a SOG
 * meta.json's images), loaded as the viewer's worker loads one
 * (scene-source.ts). Never imported by the browser build.
 */
import { dirname, resolve } from 'node:path';
import { checkDiskFile, openDiskFile, readDiskFile } from './disk-file';
import { MAX_LOAD_HOLD_BYTES } from './load-limits';
import { previewSender } from './preview-sender';
import { ScenePreview } from './scene-preview';
import { loadScene, type LoadedScene, type LoadOptions } from './scene-source';
import type { SceneSource } from './source-bytes';

/**
 * How a scene's main file is checked. Its bound is the most any load may
 * hold: the loader refuses a file past its own limits from the size
 * checked here, before reading it, and never reads past that size.
 */
const SCENE_FILE = {
  maxBytes: MAX_LOAD_HOLD_BYTES,
  wanted: 'a scene file',
  folderAdvice: 'give the path of a splat file (for an unbundled SOG scene, its meta.json)',
};

/**
 * The size of the scene file at `path`, checked as it will be read
 * (disk-file.ts): a clear error for a folder, a named pipe, a device or a
 * path where nothing is. The commands ask it first, before they spend
 * seconds making a GPU device.
 */
export async function fileSize(path: string): Promise<number> {
  return (await checkDiskFile(path, SCENE_FILE)).size;
}

/**
 * A scene file at `path`; the files it names are read from its folder, and
 * only from there once links are resolved. Every file is checked before it
 * is read and read with its bound (disk-file.ts).
 */
export function nodeFileSource(path: string): SceneSource {
  const folder = dirname(resolve(path));
  return {
    name: path,
    stage: 'read',
    open: async (signal) => {
      const { size, chunks } = await openDiskFile(path, { ...SCENE_FILE, signal });
      return { chunks, totalBytes: size };
    },
    companion: async (name, maxBytes, signal) => {
      signal?.throwIfAborted();
      return readDiskFile(resolve(folder, name), { maxBytes, folder, signal });
    },
  };
}

/**
 * Loads the scene file at `path` (with the files it names beside it) as the
 * browser's loader loads a file (SplatLoader.load, the same options): streamed
 * through the decoder within `options.limits`, the scene so far handed to
 * onPreview while it decodes; resolves with the cloud, what is odd about it
 * (warnings) and the bytes read.
 */
export function loadSceneFile(path: string, options: LoadOptions = {}): Promise<LoadedScene> {
  const { onPreview, onProgress } = options;
  const preview = onPreview ? new ScenePreview() : undefined;
  return loadScene(nodeFileSource(path), {
    limits: options.limits,
    signal: options.signal,
    onProgress: onProgress && ((stage, fraction) => onProgress({ stage, fraction })),
    onDecoded: preview && previewSender((part) => onPreview!(preview.add(part)), options.limits),
  });
}
