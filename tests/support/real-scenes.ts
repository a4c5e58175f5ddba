/**
 * The real scenes of ../shared/scenes (tests/shared-scenes.ts), decoded as
 * the viewer decodes them, once a process: shared by every test of the
 * process, so never to be changed. No GPU needed.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';

const parsed = new Map<string, Promise<SplatCloud>>();

/** A real scene by its file name in ../shared/scenes, decoded once a process. */
export function realScene(name: string): Promise<SplatCloud> {
  let cloud = parsed.get(name);
  if (!cloud) {
    const path = scenePath(name);
    cloud = readFile(path).then((bytes) => loadSplatFile(new Uint8Array(bytes), basename(path)));
    parsed.set(name, cloud);
  }
  return cloud;
}
