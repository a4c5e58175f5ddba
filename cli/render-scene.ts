/**
 * How the render command opens a scene and what it draws with: the
 * viewer's own load (the same formats, limits, errors and warnings), the
 * default scene's up, and the command's flags as the viewer's settings.
 * Apart from the command's argument handling so that the tests draw a
 * camera file exactly as the command does (tests/e2e/screen-pictures.ts
 * compares that picture with the browser's).
 */
import { basename } from 'node:path';
import type { Viewer } from '../src/app/viewer';
import type { SplatCloud } from '../src/scene/splat-cloud';
import type { WorldSession } from '../src/app/world/world-session';
import type { ViewerSettings } from '../src/app/session/viewer-settings';

/** A scene the command opened: its splats, or the world it is. */
export interface OpenedForRender {
  name: string;
  /** The scene's splats (null: a world). */
  scene: SplatCloud | null;
  world: WorldSession | null;
}

/** The settings the command's flags set. */
export type RenderSettings = Pick<ViewerSettings, 'keyBits' | 'antiAliasing' | 'renderer' | 'order' | 'background'>;

/**
 * Opens the scene file at `path` in `viewer`, each warning about it
 * handed to `warn`; throws the viewer's error when it does not open.
 */
export async function openForRender(viewer: Viewer<string>, path: string, warn: (warning: string) => void): Promise<OpenedForRender> {
  let cloud: SplatCloud | null = null;
  const unsubscribe = viewer.on('opened', (opened) => {
    cloud = opened.cloud;
    for (const warning of opened.warnings) warn(warning);
  });
  try {
    const name = basename(path);
    // The project's default scene is made with +y up; any other is guessed.
    const up = name === 'default-scene.ply' ? { axis: '+y', source: 'the default scene', why: undefined } as const : undefined;
    const outcome = await viewer.open(path, { name, up });
    const world = viewer.world;
    if (outcome !== 'opened' || (!cloud && !world)) throw new Error(viewer.state.lastError ?? `${name} did not open`);
    return { name, scene: cloud, world };
  } finally {
    unsubscribe();
  }
}

/** The most failed chunks named one by one: a world whose every chunk fails would otherwise fill the terminal. */
const FAILURES_NAMED = 20;

/**
 * After `world` settled for the picture's camera: says each chunk that
 * failed on `warn` (its region is drawn coarser, or not at all), and
 * throws, naming them, when they leave nothing drawn: a blank picture is
 * no picture of the world, and a caller must not take it for one.
 */
export function checkWorldDrawn(world: WorldSession, warn: (warning: string) => void): void {
  const failures = world.failedChunks;
  if (failures.length === 0) return;
  const named = failures.slice(0, FAILURES_NAMED);
  if (failures.length > named.length) named.push(`and ${(failures.length - named.length).toLocaleString('en-US')} more`);
  if (world.frame.drawnSplats === 0) {
    throw new Error(`nothing of ${world.files.name} was drawn: ${failures.length.toLocaleString('en-US')} of its chunks failed\n  ${named.join('\n  ')}`);
  }
  for (const failure of named) warn(`${failure} (its region is drawn coarser, or not at all)`);
}

/** Makes the command's flags the viewer's settings. */
export function applyRenderSettings(viewer: Viewer<string>, settings: RenderSettings): void {
  Object.assign(viewer.settings, settings);
}
