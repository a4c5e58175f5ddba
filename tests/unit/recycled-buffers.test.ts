/**
 * A world's chunk arrays given back to its workers (src/io/recycled-buffers.ts):
 * the smallest kept buffer large enough is taken, no more than a bound are
 * kept; splats packed over a used buffer are those packed fresh; and a
 * world opened in workers packs the next chunk into the very buffers the
 * main thread gave back, which leave it detached.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecycledBuffers } from '../../src/io/recycled-buffers';
import { DEFAULT_LOAD_LIMITS } from '../../src/io/load-limits';
import { openWorldInWorkers } from '../../src/io/world-worker-client';
import { packCloud } from '../../src/scene/splat-packing';
import { makeDefaultScene } from '../support/default-scene';
import { makeWorld } from '../support/made-world';
import { thinnedScene } from '../support/thinned-scene';
import { loopbackWorker, type LoopbackWorker } from '../support/world-worker-loopback';

describe('buffers kept for packing', () => {
  it('gives the smallest kept buffer large enough, and keeps no more than its bound, dropping the smallest', () => {
    const kept = new RecycledBuffers(3);
    const [a, b, c, d] = [100, 400, 200, 300].map((n) => new ArrayBuffer(n));
    for (const buffer of [a!, b!, c!, d!]) kept.give(buffer);
    expect(kept.count).toBe(3);
    expect(kept.bytes).toBe(900);
    expect(kept.take(150)).toBe(c);
    expect(kept.take(500)).toBeNull();
    expect(kept.take(1)).toBe(d);
    expect(kept.take(1)).toBe(b);
    expect(kept.take(1)).toBeNull();
    kept.give(new ArrayBuffer(0));
    expect(kept.count).toBe(0);
  });

  it('packs over a used buffer exactly as into a new one', () => {
    const cloud = thinnedScene(makeDefaultScene(), 64);
    for (const degree of [0, 3] as const) {
      const fresh = packCloud(cloud, cloud.count - 7, degree);
      // Larger than needed, and full of what an earlier chunk left.
      const used = [fresh.records.byteLength + 4096, fresh.sh.byteLength + 4096].map((n) => new Uint8Array(n).fill(0xa5).buffer);
      const reused = packCloud(cloud, cloud.count - 7, degree, (bytes) => used.find((b) => b.byteLength >= bytes) ?? null);
      expect(reused.records.buffer).toBe(used[0]);
      if (degree > 0) expect(reused.sh.buffer).toBe(used[1]);
      expect(reused).toEqual(fresh);
    }
  });
});

describe('a world opened in workers', () => {
  let root: string;
  let index: string;

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'recycled-buffers-'));
    const fine = thinnedScene(makeDefaultScene(), 8);
    index = makeWorld(join(root, 'made'), [fine, thinnedScene(fine, 4)], { chunkThousands: 1, chunkExtent: 1 });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('packs the next chunk into the arrays the main thread gave back, which leave it', async () => {
    const workers: LoopbackWorker[] = [];
    const world = await openWorldInWorkers({ path: index }, { limits: DEFAULT_LOAD_LIMITS }, () => workers[workers.push(loopbackWorker()) - 1]!.port);
    try {
      const first = await world.readChunk(0);
      const expected = structuredClone(first.cloud);
      world.recycle(first.cloud);
      expect(first.cloud.records.byteLength, 'detached here').toBe(0);
      // Given to the first worker, which the next read goes to (both idle: the first of the fewest waiting).
      const given = workers[0]!.received.find((r) => r.type === 'recycle');
      if (given?.type !== 'recycle') throw new Error('no buffers were given back');
      const again = await world.readChunk(0);
      expect(again.cloud).toEqual(expected);
      const answer = workers[0]!.sent.filter((s) => s.message.type === 'chunk').at(-1)!.message;
      if (answer.type !== 'chunk') throw new Error('no chunk');
      expect(given.buffers).toContain(answer.packed.records.buffer);
    } finally {
      world.close();
    }
  });
});
