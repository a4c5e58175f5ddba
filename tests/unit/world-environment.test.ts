/**
 * A world's environment (src/app/world/world-environment.ts) on its way:
 * it arrives once, or fails with why, or is given up after the chunks'
 * time limit (CHUNK_TIMEOUT_MS) even from a reader that never answers,
 * so the first chunk, which waits for it, is held no longer; closing the
 * world ends its read without a word; its splats count against the
 * budget.
 */
import { describe, expect, it } from 'vitest';
import { chunkBudget, WorldEnvironment, type ReadEnvironment } from '../../src/app/world/world-environment';
import { CHUNK_TIMEOUT_MS, type StartTimer } from '../../src/app/world/world-stream';
import { allocateSplatCloud } from '../../src/scene/splat-cloud';

/** Timers that fire only when the test fires them. */
function handTimers(): { start: StartTimer; timers: { ms: number; fire: () => void }[] } {
  const timers: { ms: number; fire: () => void }[] = [];
  return { timers, start: (ms, fire) => (timers.push({ ms, fire }), () => {}) };
}

function environment(read: ReadEnvironment | null, signal = new AbortController().signal, clock = handTimers()) {
  const said: string[] = [];
  let arrivals = 0;
  const env = new WorldEnvironment(read, signal, () => arrivals++, (why) => said.push(why), clock.start);
  return { env, said, arrivals: () => arrivals, clock };
}

describe("a world's environment", () => {
  it('arrives once, with its splats and bytes', async () => {
    const { env, said, arrivals } = environment(async () => ({ cloud: allocateSplatCloud(300, 0), bytes: 4096 }));
    expect(env.pending).toBe(true);
    await env.read;
    expect([env.pending, env.splats, env.bytes, arrivals(), said]).toEqual([false, 300, 4096, 1, []]);
  });

  it('is none where the index names none, at once', async () => {
    const { env, said, arrivals } = environment(null);
    expect(env.pending).toBe(false);
    await env.read;
    expect([env.splats, arrivals(), said]).toEqual([0, 0, []]);
  });

  it('fails with why, and the world draws on without it', async () => {
    const { env, said, arrivals } = environment(async () => Promise.reject(new Error("chunk env/meta.json: 'means_l.webp' is missing")));
    await env.read;
    expect([env.pending, env.splats, arrivals(), said]).toEqual([false, 0, 0, ["chunk env/meta.json: 'means_l.webp' is missing"]]);
  });

  it(`is given up after ${CHUNK_TIMEOUT_MS / 1000} s, even from a reader that never answers, and its read aborted`, async () => {
    let aborted = false;
    const { env, said, clock } = environment((signal) => {
      signal.addEventListener('abort', () => (aborted = true));
      return new Promise(() => {});
    });
    expect(clock.timers.map((t) => t.ms)).toEqual([CHUNK_TIMEOUT_MS]);
    await Promise.resolve();
    expect(env.pending).toBe(true);
    clock.timers[0]!.fire();
    await env.read;
    expect([env.pending, aborted, said]).toEqual([false, true, [`not read after ${CHUNK_TIMEOUT_MS / 1000} s`]]);
  });

  it('ends its read without a word when the world closes', async () => {
    const closing = new AbortController();
    const { env, said, arrivals } = environment((signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))), closing.signal);
    closing.abort(new DOMException('the world was closed', 'AbortError'));
    await env.read;
    expect([env.pending, arrivals(), said]).toEqual([false, 0, []]);
  });

  it('counts against the budget: the chosen runs get what it leaves, and none where it takes it all', () => {
    expect(chunkBudget(4_000_000, 250_000)).toBe(3_750_000);
    expect(chunkBudget(1_000_000, 1_200_000)).toBe(0);
  });
});
