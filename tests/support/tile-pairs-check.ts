/**
 * The tile renderer's pairs of the frame just drawn, read back and checked
 * on the CPU against the projector's records (tile-footprints.ts): each
 * tile's splats in the draw order, back to front; each splat in every tile
 * it blends a pixel of, and only in its quad's; no pair twice; every slot
 * past the touched pairs NO_TILE (box slots, tile-binning.ts).
 */
import { expect } from 'vitest';
import type { SplatFrame } from '../../src/app/frame/splat-frame';
import { readBufferU32 } from '../../src/gpu/readback';
import { PROJECTED_SPLAT, VISIBLE_STATE } from '../../src/render/frame-layouts';
import { blendedTiles, boxTiles, decodeRecord, tileColumns } from './tile-footprints';
import { NO_TILE } from '../../src/render/tiles/tile-binning';

export interface CheckedPairs {
  /** Splats drawn (the order's entries). */
  visible: number;
  /** Pairs whose tile the splat touches. */
  pairs: number;
  /** Pair slots sorted: every tile of the kept boxes. */
  slots: number;
  /** (tile, splat) with a pixel blended, and in the quads' boxes. */
  blendedPairs: number;
  boxPairs: number;
  /** Each drawn splat's box, in tiles (in draw order). */
  boxes: Uint32Array;
}

/** Checks the pairs of the last frame `frame` drew with tiles (a window `width` × `height`, a scene of `splats`). */
export async function expectExactPairs(device: GPUDevice, frame: SplatFrame, splats: number, width: number, height: number): Promise<CheckedPairs> {
  const tiles = frame.painters.tiles.tileRenderer!;
  const counts = tiles.lastPairs!;
  const side = counts.tileSide;
  expect(counts.overflowed).toBe(false);
  const visible = (await readBufferU32(device, frame.projector.state!, VISIBLE_STATE.size / 4))[VISIBLE_STATE.word('visible')]!;
  expect(counts.entries).toBe(visible);
  const drawn = await readBufferU32(device, frame.drawn!.order, visible);
  const depths = new Float32Array((await readBufferU32(device, frame.projector.depths!, splats)).buffer);
  const records = await readBufferU32(device, frame.projector.records!, (splats * PROJECTED_SPLAT.size) / 4);
  const sorted = tiles.sortedPairs!;
  const [keys, values] = await Promise.all([readBufferU32(device, sorted.keys, counts.total), readBufferU32(device, sorted.values, counts.total)]);

  const place = new Int32Array(splats).fill(-1);
  drawn.forEach((splat, k) => (place[splat] = k));
  const tileCount = tileColumns(width, side) * Math.ceil(height / side);
  expect(counts.touched).toBeLessThanOrEqual(counts.total);
  for (let p = counts.touched; p < counts.total; p++) {
    if (keys[p] !== NO_TILE) expect.fail(`slot ${p} of ${counts.total}, past the ${counts.touched} touched, has tile ${keys[p]}`);
    if (place[values[p]!]! < 0) expect.fail(`slot ${p} names splat ${values[p]}, which the order does not draw`);
  }
  const binned = new Map<number, Set<number>>();
  for (let p = 0; p < counts.touched; p++) {
    const tile = keys[p]!;
    const splat = values[p]!;
    expect(tile).toBeLessThan(tileCount);
    if (place[splat]! < 0) expect.fail(`pair ${p} names splat ${splat}, which the order does not draw`);
    if (p > 0 && keys[p - 1] === tile) {
      // Same tile: later in the draw order, and not nearer than the splat before.
      const previous = values[p - 1]!;
      if (!(place[splat]! > place[previous]!)) expect.fail(`tile ${tile}: splat ${splat} (draw ${place[splat]}) after splat ${previous} (draw ${place[previous]})`);
      if (!(depths[splat]! <= depths[previous]!)) expect.fail(`tile ${tile}: splat ${splat} at depth ${depths[splat]} drawn after the nearer ${previous} (${depths[previous]})`);
    } else if (p > 0 && keys[p - 1]! > tile) {
      expect.fail(`pairs ${p - 1}, ${p} not sorted by tile`);
    }
    const set = binned.get(splat) ?? new Set<number>();
    if (set.has(tile)) expect.fail(`splat ${splat} binned twice to tile ${tile}`);
    binned.set(splat, set.add(tile));
  }

  let blendedPairs = 0;
  let boxPairs = 0;
  const boxes = new Uint32Array(visible);
  for (const [k, splat] of drawn.entries()) {
    const s = decodeRecord(records, splat);
    const got = binned.get(splat) ?? new Set<number>();
    // Pixels where f32 and f64 could disagree on 1/255 are left out (1e-3 of it).
    const blended = blendedTiles(s, width, height, 1.001, side);
    const box = boxTiles(s, width, height, 0.05, side);
    blendedPairs += blended.size;
    boxPairs += box.size;
    boxes[k] = box.size;
    for (const tile of blended) if (!got.has(tile)) expect.fail(`splat ${splat} blends a pixel of tile ${tile} but was not binned to it`);
    for (const tile of got) if (!box.has(tile)) expect.fail(`splat ${splat} binned to tile ${tile}, outside its quad`);
  }
  return { visible, pairs: counts.touched, slots: counts.total, blendedPairs, boxPairs, boxes };
}
