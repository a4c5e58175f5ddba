/**
 * The files a world's frame draws, and the spare ones among them
 * (src/app/world/world-drawn-files.ts), against the same worked out with
 * Sets over random choices and fades' outgoing runs.
 */
import { describe, expect, it } from 'vitest';
import { DrawnFiles } from '../../src/app/world/world-drawn-files';
import { random } from '../support/up-scenes';

describe('the files a world draws', () => {
  it('lists each drawn file once, and as spare exactly those drawn only finer than wanted, never one a wanted or fading level draws', () => {
    const FILES = 40;
    const rand = random(11);
    const files = new DrawnFiles(FILES);
    for (let choice = 0; choice < 60; choice++) {
      files.clear();
      const drawn = new Set<number>();
      const finer = new Set<number>();
      const kept = new Set<number>();
      const runs = Math.floor(rand() * 80);
      for (let r = 0; r < runs; r++) {
        const file = Math.floor(rand() * FILES);
        const isFiner = rand() < 0.3;
        files.add(file, isFiner);
        drawn.add(file);
        (isFiner ? finer : kept).add(file);
        // Read midway at times: a later add must still be seen.
        if (rand() < 0.1) expect(new Set(files.spare)).toEqual(new Set([...finer].filter((f) => !kept.has(f))));
      }
      expect(files.size).toBe(drawn.size);
      expect(files.drawn.length).toBe(drawn.size);
      expect(new Set(files.drawn)).toEqual(drawn);
      const spare = [...finer].filter((f) => !kept.has(f));
      expect(files.spare.length).toBe(spare.length);
      expect(new Set(files.spare)).toEqual(new Set(spare));
    }
  });

  it('forgets everything on clear', () => {
    const files = new DrawnFiles(4);
    files.add(1, true);
    files.add(2, false);
    files.clear();
    files.add(3, false);
    expect([...files.drawn]).toEqual([3]);
    expect([...files.spare]).toEqual([]);
  });
});
