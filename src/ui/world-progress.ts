/**
 * What the progress bar says while a world streams: the chunks the view
 * needs that are loaded, of those it needs, and the bytes loaded so far.
 * DOM-free.
 */
import type { WorldState } from '../lib/index';
import { formatBytes } from './scene-facts';

export interface WorldProgress {
  text: string;
  /** 0..1: the needed chunks that are loaded. */
  fraction: number;
}

/**
 * The bar's caption and fill for `world` while chunks are on their way
 * (`name`: the world's index), or null once it has settled (nothing more
 * is coming for this view: the bar goes).
 */
export function worldProgress(name: string, world: Readonly<WorldState>): WorldProgress | null {
  if (world.settled) return null;
  const count = (n: number) => n.toLocaleString('en-US');
  const needed = world.chunksReady + world.chunksWanted;
  return {
    text: `Streaming ${name}… ${count(world.chunksReady)} of ${count(needed)} chunks · ${formatBytes(world.bytesLoaded)}`,
    fraction: needed > 0 ? world.chunksReady / needed : 0,
  };
}
