import { describe, expect, it } from 'vitest';
import { DrawnTiles, PROJECT_TILE } from '../../src/scene/drawn-tiles';
import { POOL_PIECE_WORDS } from '../../src/scene/splat-layouts';
import { random } from '../support/up-scenes';

/** Where the tests keep the list in its buffer (a pool keeps it after its mask and scales). */
const AT = 512;

/** Just what DrawnTiles asks of a device: its grid limit, and the words last written to the list's buffer. */
function fakeDevice(maxPerDimension: number) {
  const words: number[] = [];
  const device = {
    limits: { maxComputeWorkgroupsPerDimension: maxPerDimension },
    queue: {
      writeBuffer(_buffer: unknown, offset: number, data: Uint32Array, first: number, count: number) {
        expect(offset).toBe(AT);
        words.splice(0, words.length, ...data.subarray(first, first + count));
      },
    },
  };
  return { device: device as unknown as GPUDevice, words };
}

/** The tiles the pieces (first, end, scale) of splats cover, by brute force. */
function covered(pieces: number[]): Set<number> {
  const tiles = new Set<number>();
  for (let i = 0; i < pieces.length; i += POOL_PIECE_WORDS) {
    for (let s = pieces[i]!; s < pieces[i + 1]!; s++) tiles.add(Math.floor(s / PROJECT_TILE));
  }
  return tiles;
}

describe('the drawn tiles a world pool lists for the projector', () => {
  it('lists each tile a drawn stretch touches once, and no other, padded to the grid with the tile past the last', () => {
    const splats = 200 * PROJECT_TILE + 17;
    const tiles = Math.ceil(splats / PROJECT_TILE);
    const rng = random(7);
    for (const maxPerDimension of [4, 65535]) {
      const { device, words } = fakeDevice(maxPerDimension);
      const list = new DrawnTiles(device, splats, {} as GPUBuffer, AT);
      for (let round = 0; round < 40; round++) {
        // Stretches in any order, some sharing a tile, some empty, the last reaching the scene's end.
        const pieces: number[] = [];
        const n = Math.floor(rng() * 12);
        for (let i = 0; i < n; i++) {
          const first = Math.floor(rng() * splats);
          pieces.push(first, Math.min(splats, first + Math.floor(rng() * 3 * PROJECT_TILE)), Math.floor(rng() * 256));
        }
        if (round === 1) pieces.push(splats - 3, splats, 255);
        list.set(new Uint32Array(pieces), pieces.length / POOL_PIECE_WORDS);
        const want = covered(pieces);
        const [x, y] = list.groups;
        expect(list.listed).toBe(want.size);
        expect(words[0]).toBe(1);
        expect(words.length).toBe(1 + x * y);
        expect(4 * words.length).toBeLessThanOrEqual(list.bytes);
        expect(x).toBeLessThanOrEqual(maxPerDimension);
        expect(x * y).toBeGreaterThanOrEqual(want.size);
        expect(x * y - want.size).toBeLessThan(Math.max(1, x));
        expect(new Set(words.slice(1, 1 + want.size))).toEqual(want);
        expect(words.slice(1 + want.size)).toEqual(Array(x * y - want.size).fill(tiles));
      }
    }
  });

  it('lists nothing, and dispatches no workgroup, when nothing is drawn', () => {
    const { device, words } = fakeDevice(65535);
    const list = new DrawnTiles(device, 1000, {} as GPUBuffer, AT);
    list.set(new Uint32Array([0, 1000, 255]), 1);
    list.set(new Uint32Array(0), 0);
    expect(list.listed).toBe(0);
    expect(list.groups[0] * list.groups[1]).toBe(0);
    expect(words).toEqual([1]);
  });
});
