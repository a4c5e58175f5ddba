/**
 * An index of any shape the limits allow opens, and is chosen from, without
 * a stack overflow: as many chunk files as an index may name
 * (LOD_META_LIMITS.maxFiles, 262,144), one leaf each, all in view and none
 * resident, so that every one is needed at once. The choice once spread its
 * list of needed files into a push, which overflowed the stack from about
 * 125,000 files ("Maximum call stack size exceeded"), and the page then
 * drew nothing and said nothing.
 */
import { describe, expect, it } from 'vitest';
import { worldChoice, worldView } from '../../src/app/world/world-lod';
import { ChunkStream } from '../../src/app/world/world-stream';
import { LOD_META_LIMITS } from '../../src/io/lod/lod-meta';
import { openWorld } from '../../src/io/lod/world-files';
import { bufferSource } from '../../src/io/web-scene-sources';

/** The text of an index of `files` chunk files on a square grid of unit leaves, one a file, 64 children a node. */
function gridIndex(files: number): string {
  const side = Math.ceil(Math.sqrt(files));
  const bound = `"bound":{"min":[0,0,0],"max":[${side},1,${side}]}`;
  let nodes = Array.from({ length: files }, (_, i) => {
    const [x, z] = [i % side, Math.floor(i / side)];
    return `{"bound":{"min":[${x},0,${z}],"max":[${x + 1},1,${z + 1}]},"lods":{"0":{"file":${i},"offset":0,"count":100}}}`;
  });
  while (nodes.length > 1) {
    const parents: string[] = [];
    for (let at = 0; at < nodes.length; at += LOD_META_LIMITS.maxChildren) parents.push(`{${bound},"children":[${nodes.slice(at, at + LOD_META_LIMITS.maxChildren).join(',')}]}`);
    nodes = parents;
  }
  const filenames = Array.from({ length: files }, (_, i) => `"0_${i}/meta.json"`).join(',');
  return `{"version":1,"lodLevels":1,"filenames":[${filenames}],"tree":${nodes[0]}}`;
}

describe('an index as wide as the limits allow', () => {
  it(`opens, and a camera that sees all of its ${LOD_META_LIMITS.maxFiles.toLocaleString('en-US')} chunks asks for every one at once`, async () => {
    const files = LOD_META_LIMITS.maxFiles;
    const text = gridIndex(files);
    const world = await openWorld(bufferSource(new TextEncoder().encode(text), 'lod-meta.json'));
    expect(world.index.leaves).toBe(files);
    expect(world.usedSplats.every((used) => used === 100)).toBe(true);

    const side = Math.ceil(Math.sqrt(files));
    const middle = side / 2;
    const view = worldView({ width: 1000, height: 1000, fovy_deg: 90, eye: [middle, 2 * side, middle + 1e-3], target: [middle, 0, middle], up: [0, 0, -1], background: [0, 0, 0], sh_degree: 0 });
    const choice = worldChoice(world.index).choose(view, { thresholdPx: 0.5, budget: Infinity, resident: () => false });
    expect(choice.fetch).toHaveLength(files);
    expect(new Set(choice.fetch).size).toBe(files);

    // The stream takes the whole list and starts the head of it.
    const started: number[] = [];
    const stream = new ChunkStream<number>(
      { load: (file) => (started.push(file), new Promise(() => {})), heldBytes: () => 1, expectedHeld: () => 1, release: () => {} },
      { maxInFlight: 4, memoryBudget: Infinity },
    );
    stream.update(choice.fetch, []);
    expect(started).toEqual(choice.fetch.slice(0, 4));
    stream.close();
  }, 20_000);
});
