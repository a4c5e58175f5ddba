/**
 * What the progress bar says while a world streams (src/ui/world-progress.ts):
 * the chunks the view needs that are loaded, of those it needs, and the
 * bytes loaded; nothing once the world has settled.
 */
import { describe, expect, it } from 'vitest';
import type { WorldState } from '../../src/lib/index';
import { worldProgress } from '../../src/ui/world-progress';

const streaming: WorldState = {
  budget: 4_000_000, drawnSplats: 1_200_000, thresholdPx: 0.5, chunks: 530, chunksLoaded: 14, bytesLoaded: 48_300_000,
  chunksReady: 12, chunksWanted: 28, inFlight: 4, gpuBytes: 0, settled: false,
};

describe("a world's streaming on the progress bar", () => {
  it('says the chunks the view needs that are loaded, of those it needs, and the bytes loaded, and fills by that share', () => {
    expect(worldProgress('lod-meta.json', streaming)).toEqual({ text: 'Streaming lod-meta.json… 12 of 40 chunks · 48.3 MB', fraction: 0.3 });
  });

  it('counts with separators, and starts empty before any chunk is known', () => {
    expect(worldProgress('big/lod-meta.json', { ...streaming, chunksReady: 1234, chunksWanted: 766, bytesLoaded: 2_400_000_000 })?.text).toBe('Streaming big/lod-meta.json… 1,234 of 2,000 chunks · 2.40 GB');
    expect(worldProgress('lod-meta.json', { ...streaming, chunksReady: 0, chunksWanted: 0, bytesLoaded: 0 })).toEqual({ text: 'Streaming lod-meta.json… 0 of 0 chunks · 0 B', fraction: 0 });
  });

  it('is gone once nothing more is on its way', () => {
    expect(worldProgress('lod-meta.json', { ...streaming, chunksWanted: 0, inFlight: 0, settled: true })).toBeNull();
  });
});
