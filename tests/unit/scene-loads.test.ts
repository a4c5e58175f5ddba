/**
 * The viewer's load policy (src/app/session/scene-loads.ts) with loads whose
 * answers the test releases by hand, in any order: only the newest load
 * may show its scene, its error or its progress, and a replaced load is
 * cancelled.
 */
import { describe, expect, it } from 'vitest';
import { SceneLoads, type LoadOutcome } from '../../src/app/session/scene-loads';

interface Pending {
  source: string;
  signal: AbortSignal;
  progress: (p: number) => void;
  preview: (part: string) => void;
  resolve: (scene: string) => void;
  reject: (error: unknown) => void;
}

/** A SceneLoads whose loads wait until the test settles them; aborting one rejects it as a worker would. */
function harness() {
  const pending: Pending[] = [];
  const loads = new SceneLoads<string, string, number, string>((source, { signal, onProgress, onPreview }) =>
    new Promise<string>((resolve, reject) => {
      pending.push({ source, signal, progress: onProgress, preview: (part) => onPreview?.(part), resolve, reject });
      signal.addEventListener('abort', () => reject(new DOMException('cancelled', 'AbortError')));
    }));
  const seen: string[] = [];
  const run = (source: string): Promise<LoadOutcome> =>
    loads.run(source, {
      progress: (p) => seen.push(`${source} at ${p}`),
      preview: (part) => seen.push(`preview ${part}`),
      show: (scene) => seen.push(`show ${scene}`),
      fail: (error) => seen.push(`fail ${source}: ${(error as Error).message}`),
    });
  return { loads, pending, seen, run };
}

describe('scene loads', () => {
  it('shows a load that finishes', async () => {
    const { pending, seen, run, loads } = harness();
    const outcome = run('a.ply');
    expect(loads.loading).toBe(true);
    pending[0]!.progress(0.5);
    pending[0]!.resolve('scene a');
    expect(await outcome).toBe('opened');
    expect(seen).toEqual(['a.ply at 0.5', 'show scene a']);
    expect(loads.loading).toBe(false);
  });

  it('cancels a load that another replaces, and shows only the newer one', async () => {
    const { pending, seen, run } = harness();
    const slow = run('slow.ply');
    const user = run('user.ply');
    expect(pending[0]!.signal.aborted).toBe(true);
    expect(pending[1]!.signal.aborted).toBe(false);
    pending[1]!.resolve('user scene');
    expect(await user).toBe('opened');
    expect(await slow).toBe('superseded');
    expect(seen).toEqual(['show user scene']);
  });

  it('never shows a replaced load, even one whose loader ignores the abort and answers late', async () => {
    const { pending, seen, run } = harness();
    const slow = run('slow.ply');
    const user = run('user.ply');
    pending[1]!.resolve('user scene');
    await user;
    // A loader that did not stop: its late answers, a scene or an error, are dropped.
    pending[0]!.progress(0.9);
    pending[0]!.resolve('stale scene');
    expect(await slow).toBe('superseded');
    expect(seen).toEqual(['show user scene']);
  });

  it('drops the error of a replaced load', async () => {
    const { pending, seen, run } = harness();
    const broken = run('broken.ply');
    const user = run('user.ply');
    pending[0]!.reject(new Error('NaN in splat 99'));
    pending[1]!.resolve('user scene');
    expect(await broken).toBe('superseded');
    expect(await user).toBe('opened');
    expect(seen).toEqual(['show user scene']);
  });

  it('reports the error of the current load', async () => {
    const { pending, seen, run } = harness();
    const broken = run('broken.ply');
    pending[0]!.reject(new Error('NaN in splat 99'));
    expect(await broken).toBe('failed');
    expect(seen).toEqual(['fail broken.ply: NaN in splat 99']);
  });

  it('cancels the load in progress on request, showing nothing', async () => {
    const { pending, seen, run, loads } = harness();
    const outcome = run('slow.ply');
    loads.cancel();
    expect(pending[0]!.signal.aborted).toBe(true);
    expect(await outcome).toBe('cancelled');
    expect(loads.loading).toBe(false);
    expect(seen).toEqual([]);
  });

  it('fails a load whose scene cannot be shown (e.g. the GPU refuses it)', async () => {
    const { pending } = harness();
    const loads = new SceneLoads<string, string, number>(() => new Promise((resolve) => pending.push({ resolve } as Pending)));
    const failures: string[] = [];
    const outcome = loads.run('big.ply', {
      show: () => {
        throw new RangeError('does not fit');
      },
      fail: (error) => failures.push((error as Error).message),
    });
    pending[0]!.resolve('scene');
    expect(await outcome).toBe('failed');
    expect(failures).toEqual(['does not fit']);
  });

  it('shows the scene so far only while the load is the current one', async () => {
    const { pending, seen, run } = harness();
    const slow = run('slow.ply');
    pending[0]!.preview('slow, first part');
    const user = run('user.ply');
    // The replaced load goes on sending parts (a worker's messages in flight): none shows.
    pending[0]!.preview('slow, second part');
    pending[1]!.preview('user, first part');
    pending[1]!.resolve('user scene');
    expect(await user).toBe('opened');
    expect(await slow).toBe('superseded');
    expect(seen).toEqual(['preview slow, first part', 'preview user, first part', 'show user scene']);
  });
});
