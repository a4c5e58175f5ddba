/**
 * Node entry to the scene loader, for the command-line tools and the
 * benchmarks: a scene file on disk, with the files it names beside it (a SOG
 * meta.json's images), loaded as the viewer's worker loads one
 * (scene-source.ts). Never imported by the browser build.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SplatFormatError } from './format-error';
import { SplatLimitError } from './load-limits';
import { previewSender } from './preview-sender';
import { ScenePreview } from './scene-preview';
import { loadScene, type LoadedScene, type LoadOptions } from './scene-source';
import type { SceneSource } from './source-bytes';

/**
 * The file's size; a clear error for a folder, or a path where nothing is.
 * The commands ask it first, before they spend seconds making a GPU device.
 */
export async function fileSize(path: string): Promise<number> {
  let info;
  try {
    info = await stat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`There is no file at '${path}'`);
    throw error;
  }
  if (info.isDirectory()) {
    throw new SplatFormatError(`'${path}' is a folder, not a scene file: give the path of a splat file (for an unbundled SOG scene, its meta.json)`);
  }
  return info.size;
}

/** A scene file at `path`; the files it names are read from its folder. */
export function nodeFileSource(path: string): SceneSource {
  const folder = dirname(resolve(path));
  return {
    name: path,
    stage: 'read',
    open: async () => {
      const totalBytes = await fileSize(path);
      return { chunks: createReadStream(path, { highWaterMark: 1 << 20 }), totalBytes };
    },
    companion: async (name, maxBytes, signal) => {
      signal?.throwIfAborted();
      const companion = resolve(folder, name);
      const size = await fileSize(companion);
      if (size > maxBytes) {
        throw new SplatLimitError(`'${companion}' is ${size.toLocaleString('en-US')} bytes: more than the ${maxBytes.toLocaleString('en-US')} it can take`);
      }
      // readFile takes the signal: an abort stops the read and rejects with its reason.
      return new Uint8Array(await readFile(companion, { signal }));
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
