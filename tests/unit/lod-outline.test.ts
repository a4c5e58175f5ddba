/**
 * A world's outline (src/io/lod/lod-outline.ts): what the main thread
 * keeps of an index. Its runs are each leaf's, in the order the level
 * choice numbers the leaves (a worker's answers are read through it); the
 * world's worker sends it, its arrays transferred, and never the tree's
 * objects; the main thread's world parses the index only when a choice
 * there asks for it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { worldChoice, worldLeaves } from '../../src/app/world/world-lod';
import { parseLodMeta, type LodIndex } from '../../src/io/lod/lod-meta';
import { lodOutline, outlineRun } from '../../src/io/lod/lod-outline';
import { DEFAULT_LOAD_LIMITS } from '../../src/io/load-limits';
import { nodeFileSource } from '../../src/io/node-scene-source';
import { openWorldInWorkers } from '../../src/io/world-worker-client';
import { serveWorld, type WorkerScope, type WorldWorkerRequest, type WorldWorkerResponse } from '../../src/io/world-worker-core';
import { loopbackWorker, type LoopbackWorker } from '../support/world-worker-loopback';
import { random } from '../support/up-scenes';
import { lodMetaText, randomWorld } from '../support/random-world';

describe("a world's outline", () => {
  it("lists each leaf's run at each level in the order the choice numbers the leaves and runs", () => {
    const rand = random(71);
    for (let world = 0; world < 30; world++) {
      const index = randomWorld(rand, world % 2 === 0);
      const outline = lodOutline(index);
      const leaves = worldLeaves(index);
      expect(outline.leaves).toBe(leaves.length);
      expect(outline.filenames).toEqual(index.filenames);
      expect(outline.counts).toEqual(index.counts);
      expect(outline.bound).toEqual(index.tree.bound);
      leaves.forEach((leaf, i) => {
        for (let level = 0; level < index.levels; level++) expect(outlineRun(outline, i, level)).toEqual(leaf.runs[level] ?? null);
      });
      // The choice numbers its runs with the outline's stride: a run number is its place in the outline's arrays.
      expect(worldChoice(index).levels).toBe(outline.levels);
    }
  });
});

describe("a world's worker", () => {
  let dir: string;
  let path: string;
  let text: string;
  let index: LodIndex;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lod-outline-'));
    path = join(dir, 'lod-meta.json');
    text = lodMetaText(randomWorld(random(5), true));
    writeFileSync(path, text);
    index = parseLodMeta(text, 'lod-meta.json');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends the outline with its arrays transferred, and the text, never the tree', async () => {
    const sent: WorldWorkerResponse[] = [];
    const transfers: Transferable[][] = [];
    const scope: WorkerScope = {
      onmessage: null,
      postMessage: (message, transfer = []) => {
        sent.push(message);
        transfers.push(transfer);
      },
    };
    serveWorld(scope, (spec) => ('path' in spec ? nodeFileSource(spec.path) : null));
    const open: WorldWorkerRequest = { type: 'open', source: { path }, limits: DEFAULT_LOAD_LIMITS, sendIndex: true };
    scope.onmessage!({ data: open });
    await expect.poll(() => sent.length).toBe(1);
    const opened = sent[0]!;
    if (opened.type !== 'opened') throw new Error(`the worker answered ${JSON.stringify(opened)}`);
    expect(Object.keys(opened)).not.toContain('index');
    expect(opened.outline).toEqual(lodOutline(index));
    expect(opened.indexText).toBe(text);
    const outline = opened.outline!;
    expect(transfers[0]).toEqual([outline.runFiles.buffer, outline.runOffsets.buffer, outline.runCounts.buffer]);
  });

  it("opens the main thread's world from the outline, and parses the index only when asked", async () => {
    const workers: LoopbackWorker[] = [];
    const world = await openWorldInWorkers({ path }, { limits: DEFAULT_LOAD_LIMITS }, () => workers[workers.push(loopbackWorker()) - 1]!.port);
    try {
      expect(world.outline).toEqual(lodOutline(index));
      // Transferred: the worker's arrays are detached once sent.
      const sentOutline = workers.flatMap((w) => w.sent.flatMap((s) => s.transfer)) as ArrayBuffer[];
      expect(sentOutline).toHaveLength(3);
      expect(sentOutline.every((b) => b.byteLength === 0)).toBe(true);
      const descriptor = Object.getOwnPropertyDescriptor(world, 'index');
      expect(descriptor?.get).toBeTypeOf('function');
      expect(world.index).toEqual(index);
      expect(world.index).toBe(world.index);
    } finally {
      world.close();
    }
  });
});
