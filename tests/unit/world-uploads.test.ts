/**
 * A world's chunk uploads paced by frames (src/app/world/world-uploads.ts):
 * a frame's room goes to the pages asked for, first asked first; a page
 * larger than the room still goes when a frame has room left (a page is
 * the unit); closing refuses those waiting and those to come; the time
 * spent writing pages is counted, and only that.
 */
import { describe, expect, test } from 'vitest';
import { UploadPacer } from '../../src/app/world/world-uploads';
import type { PooledChunk, SplatPool } from '../../src/scene/splat-pool';
import type { PoolSplats } from '../../src/scene/splat-packing';

/** The order in which asked uploads were let through, by name. */
function recorder(pacer: UploadPacer) {
  const through: string[] = [];
  const ask = (name: string, bytes: number) => pacer.room(bytes).then(() => through.push(name), (why: Error) => through.push(`${name}: ${why.message}`));
  return { through, ask };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('the upload pacer', () => {
  test("a frame's room goes to the pages asked for, in order; the rest wait for the next frames", async () => {
    const pacer = new UploadPacer(10);
    const { through, ask } = recorder(pacer);
    for (const [name, bytes] of [['a', 4], ['b', 4], ['c', 4], ['d', 4], ['e', 4]] as const) void ask(name, bytes);
    await settle();
    // 4 + 4 leaves room, the third takes the frame past it: a, b and c in the first frame.
    expect(through).toEqual(['a', 'b', 'c']);
    expect(pacer.pending).toBe(2);
    pacer.nextFrame();
    await settle();
    expect(through).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pacer.pending).toBe(0);
  });

  test('a page larger than a frame goes alone in a frame of its own, and none overtakes one waiting', async () => {
    const pacer = new UploadPacer(10);
    const { through, ask } = recorder(pacer);
    void ask('big', 25);
    void ask('small', 1);
    await settle();
    expect(through).toEqual(['big']);
    // A frame later, the small one: asked after the big one, it waited its turn.
    void ask('later', 1);
    await settle();
    expect(through).toEqual(['big']);
    pacer.nextFrame();
    await settle();
    expect(through).toEqual(['big', 'small', 'later']);
  });

  test('nothing passes without a frame once the room is spent, however long it waits', async () => {
    const pacer = new UploadPacer(1);
    const { through, ask } = recorder(pacer);
    void ask('first', 1);
    void ask('second', 1);
    for (let i = 0; i < 5; i++) await settle();
    expect(through).toEqual(['first']);
    pacer.nextFrame();
    await settle();
    expect(through).toEqual(['first', 'second']);
  });

  test('closing refuses those waiting and those asked after, with the reason given', async () => {
    const pacer = new UploadPacer(1);
    const { through, ask } = recorder(pacer);
    void ask('first', 1);
    void ask('waiting', 1);
    await settle();
    pacer.close(new Error('the world was closed'));
    void ask('after', 1);
    await settle();
    expect(through).toEqual(['first', 'waiting: the world was closed', 'after: the world was closed']);
    expect(pacer.pending).toBe(0);
  });

  test('counts the milliseconds spent writing pages, a frame\'s pages at a time, and not the time a page waits for its frame', async () => {
    const PAGE_MS = 3;
    const written: number[] = [];
    const spin = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    // A pool of two-byte pages whose every page write takes PAGE_MS.
    const pool = {
      pageBytes: () => 2,
      staging: { block: async () => ({ submit: () => {} }) },
      writePage: (_chunk: PooledChunk, _splats: PoolSplats, k: number) => {
        spin(PAGE_MS);
        written.push(k);
      },
      remove: () => {},
    } as unknown as SplatPool;
    const chunk = { pages: [0, 1, 2] } as unknown as PooledChunk;
    const pacer = new UploadPacer(2);
    const writing = pacer.write(pool, chunk, {} as PoolSplats, new AbortController().signal);
    await settle();
    expect(written).toEqual([0]);
    // Waiting for the next frame costs nothing: the wait is far longer than any write could stretch to.
    const WAIT_MS = 300;
    await new Promise((r) => setTimeout(r, WAIT_MS));
    expect(pacer.writeMs).toBeGreaterThanOrEqual(PAGE_MS);
    expect(pacer.writeMs).toBeLessThan(WAIT_MS / 2);
    pacer.nextFrame();
    await settle();
    pacer.nextFrame();
    await writing;
    expect(written).toEqual([0, 1, 2]);
    expect(pacer.writeMs).toBeGreaterThanOrEqual(3 * PAGE_MS);
  });
});
