/**
 * The CPU reference's hierarchical per-pixel order
 * (bench/windowed-pixel-order.ts: a tile-level window by tile depth, then
 * a short per-pixel queue) against the orders it must reduce to, on a
 * cloud of random overlapping anisotropic splats: window 0 and batch 1
 * with no queue is the centre-depth order; a window longer than any list,
 * a per-tile sort by tile depth; window 0, a sort of each batch; a queue
 * longer than any list, the exact per-pixel sort. And manyPixelOrders,
 * which draws the study's orders in one pass, against each order alone.
 */
import { describe, expect, test } from 'vitest';
import { mat4 } from 'gl-matrix';
import { ALPHA_MIN, alphaAt, binByTile, CENTRE_DEPTH_ORDER, preprocess, renderReference, TILE, type Preprocessed, type ReferenceOrder, type ReferenceView } from '../../src/render/reference-rasterizer';
import { depthAlongRay, perPixelOrder, startPixel } from '../../bench/reference-pixel-order';
import { FaintBucketQueue } from '../../bench/faint-bucket-queue';
import { manyPixelOrders, tileDepth, windowedPixelOrder, windowOrder, type PixelRule, type TileDepth, type WindowOptions } from '../../bench/windowed-pixel-order';
import { allocateSplatCloud, computeBounds, SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';
import { rng } from '../support/splat-files';

const WIDTH = 72;
const HEIGHT = 40; // the last row of tiles cut by the picture's edge
const BG = [0.1, 0.2, 0.3] as const;

/** `count` random splats in front of the camera, overlapping in depth, flat and turned every way. */
function randomCloud(count: number, seed: number): SplatCloud {
  const random = rng(seed);
  const cloud = allocateSplatCloud(count, 0);
  for (let i = 0; i < count; i++) {
    cloud.positions.set([(random() - 0.5) * 5, (random() - 0.5) * 3, -4 - 2 * random()], 3 * i);
    cloud.scales.set([0.05 + 0.5 * random(), 0.05 + 0.5 * random(), 0.01 + 0.3 * random()], 3 * i);
    const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
    const norm = Math.hypot(...q);
    cloud.rotations.set(q.map((v) => v / norm), 4 * i);
    cloud.opacities[i] = 0.2 + 0.75 * random();
    cloud.dc.set([random(), random(), random()].map((c) => (c - 0.5) / SH_C0), 3 * i);
  }
  cloud.bounds = computeBounds(cloud.positions, cloud.count);
  return cloud;
}

const cloud = randomCloud(160, 7);
const view: ReferenceView = {
  view: mat4.lookAt(mat4.create(), [0, 0, 0], [0, 0, -1], [0, 1, 0]),
  eye: [0, 0, 0],
  fovY: Math.PI / 3,
  width: WIDTH,
  height: HEIGHT,
  shDegree: 0,
  background: BG,
};
const splats = preprocess(cloud, view, { shDegree: 0, rayShapes: true });
const tilesX = Math.ceil(WIDTH / TILE);
const lists = binByTile(splats, tilesX, Math.ceil(HEIGHT / TILE));
const longest = Math.max(...lists.map((list) => list.length));

const draw = (order: ReferenceOrder) => renderReference(cloud, view, order).rgb;
const centreDepth = draw(CENTRE_DEPTH_ORDER);
const exact = draw(perPixelOrder());

/** An order that blends, in the reference's way, each tile's list rearranged by `arrange`. */
function tileOrder(arrange: (list: Int32Array, tx: number, ty: number) => Int32Array): ReferenceOrder {
  const arranged = new Map<Int32Array, Int32Array>();
  return {
    rayShapes: true,
    blend: (s, list, px, py, out) => {
      if (!arranged.has(list)) arranged.set(list, arrange(list, Math.floor(px / TILE), Math.floor(py / TILE)));
      CENTRE_DEPTH_ORDER.blend(s, arranged.get(list)!, px, py, out);
    },
  };
}

/** `list`'s splats sorted by tile depth (ties in list order), `batch` at a time. */
const sortedByTileDepth = (rule: TileDepth, batch = Infinity) => (list: Int32Array, tx: number, ty: number) => {
  const out: number[] = [];
  for (let start = 0; start < list.length; start += batch) {
    const part = Array.from(list.subarray(start, Math.min(list.length, start + batch)), (k, n) => ({ k, n, tau: tileDepth(splats, k, tx, ty, rule) }));
    out.push(...part.sort((a, b) => a.tau - b.tau || a.n - b.n).map(({ k }) => k));
  }
  return Int32Array.from(out);
};

describe('the windowed per-pixel order', () => {
  test('the scene is one where the orders differ: lists longer than a batch, and centre depth against the exact sort', () => {
    expect(longest).toBeGreaterThan(40);
    expect(centreDepth).not.toEqual(exact);
  });

  test('window 0, batch 1, no queue: the centre-depth order, pixel for pixel', () => {
    for (const rule of ['nearest', 'centre'] as const) expect(draw(windowedPixelOrder({ window: 0, batch: 1, tileDepth: rule, queue: 0 }))).toEqual(centreDepth);
  });

  test.each(['nearest', 'centre'] as const)('a window longer than any list, no queue: each tile sorted by tile depth (%s)', (rule) => {
    const windowed = draw(windowedPixelOrder({ window: longest, batch: 16, tileDepth: rule, queue: 0 }));
    expect(windowed).toEqual(draw(tileOrder(sortedByTileDepth(rule))));
    expect(windowed).not.toEqual(centreDepth);
  });

  test('window 0: each batch sorted by tile depth on its own', () => {
    expect(draw(windowedPixelOrder({ window: 0, batch: 8, tileDepth: 'nearest', queue: 0 }))).toEqual(draw(tileOrder(sortedByTileDepth('nearest', 8))));
  });

  test('a queue longer than any list: the exact per-pixel sort, whatever the window', () => {
    expect(draw(windowedPixelOrder({ window: 8, batch: 8, tileDepth: 'centre', queue: longest }))).toEqual(exact);
  });

  test('a window passes on each splat once, and what it passes on is in tile-depth order within what it held', () => {
    const at = lists.findIndex((list) => list.length === longest);
    const [tx, ty] = [at % tilesX, Math.floor(at / tilesX)];
    const list = lists[at]!;
    const order = windowOrder(splats, list, tx, ty, { window: 8, batch: 8, tileDepth: 'nearest' });
    expect(Array.from(order).sort((a, b) => a - b)).toEqual(Array.from({ length: list.length }, (_, n) => n));
    // The first pass (after two batches, the first filling the window): the nearest 8 of the first 16.
    const tau = (n: number) => tileDepth(splats, list[n]!, tx, ty, 'nearest');
    const first16 = Array.from({ length: 16 }, (_, n) => n).sort((a, b) => tau(a) - tau(b) || a - b);
    expect(Array.from(order.subarray(0, 8))).toEqual(first16.slice(0, 8));
  });

  test("tile depths: 'nearest' at the tile's pixel nearest the splat's centre, 'centre' at the tile's centre", () => {
    const k = lists.flatMap((list) => Array.from(list)).find((k) => splats.xy[2 * k]! > 20 && splats.xy[2 * k]! < 60 && splats.xy[2 * k + 1]! > 3 && splats.xy[2 * k + 1]! < 12)!;
    expect(k).toBeDefined();
    const [x, y] = [splats.xy[2 * k]!, splats.xy[2 * k + 1]!];
    const [tx, ty] = [Math.floor(x / TILE), Math.floor(y / TILE)];
    expect(tileDepth(splats, k, tx, ty, 'nearest')).toBe(depthAlongRay(splats, k, Math.round(x), Math.round(y)));
    // A tile to its right: the pixel of the tile's left column on the splat's row.
    expect(tileDepth(splats, k, tx + 1, ty, 'nearest')).toBe(depthAlongRay(splats, k, (tx + 1) * TILE, Math.round(y)));
    expect(tileDepth(splats, k, tx, ty, 'centre')).toBe(depthAlongRay(splats, k, tx * TILE + 7.5, ty * TILE + 7.5));
  });

  test('settings that are not whole numbers in range are refused', () => {
    expect(() => windowedPixelOrder({ window: -1, batch: 8, tileDepth: 'nearest', queue: 0 })).toThrow(/window/);
    expect(() => windowedPixelOrder({ window: 8, batch: 0, tileDepth: 'nearest', queue: 0 })).toThrow(/batch/);
    expect(() => windowedPixelOrder({ window: 8, batch: 8, tileDepth: 'nearest', queue: 1.5 })).toThrow(/queue/);
  });
});

describe('manyPixelOrders', () => {
  test('draws every rule as that order alone does, pixel for pixel', () => {
    const windows: WindowOptions[] = [
      { window: 0, batch: 8, tileDepth: 'nearest', queue: 0 },
      { window: 8, batch: 8, tileDepth: 'nearest', queue: 2 },
      { window: 16, batch: 4, tileDepth: 'centre', queue: 1 },
    ];
    const rules: PixelRule[] = [{ kind: 'exact' }, { kind: 'centre-depth' }, { kind: 'queue', queue: 1 }, { kind: 'queue', queue: 4 }, ...windows.map((w) => ({ kind: 'window' as const, ...w }))];
    const alone = [perPixelOrder(), CENTRE_DEPTH_ORDER, perPixelOrder(1), perPixelOrder(4), ...windows.map(windowedPixelOrder)];
    const many = manyPixelOrders(rules, WIDTH, HEIGHT);
    expect(draw(many.order)).toEqual(exact);
    rules.forEach((_, r) => {
      const sums = many.sums[r]!;
      const rgb = new Float32Array(WIDTH * HEIGHT * 3);
      for (let p = 0; p < WIDTH * HEIGHT; p++) for (let c = 0; c < 3; c++) rgb[3 * p + c] = sums[4 * p + c]! + sums[4 * p + 3]! * BG[c]!;
      expect(rgb).toEqual(draw(alone[r]!));
    });
    // The rules differ from one another on this scene, so the comparison above says something.
    expect(new Set(many.sums.map((s) => s.join())).size).toBe(rules.length);
  });

  test('counts what each rule would cost a workgroup: the exact order takes every list whole, the queues stop later than the centre-depth order', () => {
    // Dense enough that pixels stop before their lists end, so the counts say something.
    const dense = randomCloud(1500, 11);
    dense.opacities.fill(0.99);
    const denseSplats = preprocess(dense, view, { shDegree: 0, rayShapes: true });
    const rules: PixelRule[] = [{ kind: 'exact' }, { kind: 'centre-depth' }, { kind: 'queue', queue: 1 }, { kind: 'queue', queue: 4 }];
    const many = manyPixelOrders(rules, WIDTH, HEIGHT);
    renderReference(dense, view, many.order);
    const { walked, arrivals } = many.cost();
    // Counted here: every tile's list, and every pixel's reaching splats.
    let listed = 0, reaching = 0;
    binByTile(denseSplats, tilesX, Math.ceil(HEIGHT / TILE)).forEach((list, tile) => {
      listed += list.length;
      const x0 = (tile % tilesX) * TILE, y0 = Math.floor(tile / tilesX) * TILE;
      for (let py = y0; py < Math.min(HEIGHT, y0 + TILE); py++) {
        for (let px = x0; px < Math.min(WIDTH, x0 + TILE); px++) for (const k of list) if (alphaAt(denseSplats, k, px, py) >= ALPHA_MIN) reaching++;
      }
    });
    expect([walked[0], arrivals[0]]).toEqual([listed, reaching]);
    for (let r = 1; r < rules.length; r++) {
      expect(walked[r]).toBeLessThanOrEqual(walked[r + 1] ?? listed);
      expect(arrivals[r]).toBeLessThanOrEqual(arrivals[r + 1] ?? reaching);
    }
    expect(arrivals[1]).toBeLessThan(arrivals[3]!);
    expect(walked[1]).toBeLessThan(listed);
  });
});

describe('the faint bucket (bench/faint-bucket-queue.ts)', () => {
  const rgbOf = (sums: Float32Array) => {
    const rgb = new Float32Array(WIDTH * HEIGHT * 3);
    for (let p = 0; p < WIDTH * HEIGHT; p++) for (let c = 0; c < 3; c++) rgb[3 * p + c] = sums[4 * p + c]! + sums[4 * p + 3]! * BG[c]!;
    return rgb;
  };

  test('with nothing faint it is the queue of its places; with everything faint, where no pixel stops, the centre-depth order', () => {
    const rules: PixelRule[] = [{ kind: 'exact' }, { kind: 'faint', queue: 4, below: 1e-9, front: false }, { kind: 'faint', queue: 4, below: 0.4, front: false }];
    const many = manyPixelOrders(rules, WIDTH, HEIGHT);
    draw(many.order);
    expect(rgbOf(many.sums[1]!)).toEqual(draw(perPixelOrder(4)));
    expect(many.cost().faint[1]).toBe(0);
    // Between the two it is neither, and some arrivals, not all, took the bucket.
    const middle = rgbOf(many.sums[2]!);
    expect(middle).not.toEqual(draw(perPixelOrder(4)));
    expect(middle).not.toEqual(centreDepth);
    const { faint, arrivals } = many.cost();
    expect(faint[2]).toBeGreaterThan(0);
    expect(faint[2]).toBeLessThan(arrivals[2]!);

    // Faint everywhere (alpha 0.05 at most: no pixel's transmittance falls to the stop), all in the bucket: the arrival order.
    const faintCloud = randomCloud(160, 7);
    faintCloud.opacities.fill(0.05);
    const all = manyPixelOrders([{ kind: 'centre-depth' }, { kind: 'faint', queue: 4, below: 1, front: false }], WIDTH, HEIGHT);
    renderReference(faintCloud, view, all.order);
    expect(all.sums[1]).toEqual(all.sums[0]);
  });

  test('the bucket is blended at the depth of its first splat: before a farther held place, after a nearer one', () => {
    // Splat 0 red, strong, at depth 5; splat 1 green, faint, at depth 1; splat 2 blue, strong, at depth 0.5.
    const three = { color: Float32Array.of(1, 0, 0, 0, 1, 0, 0, 0, 1) } as unknown as Preprocessed;
    const pixel = (arrivals: [number, number, number][], places = 4) => {
      const queue = new FaintBucketQueue(places, 0.2);
      const state = new Float64Array(5);
      startPixel(state);
      for (const [k, alpha, t] of arrivals) queue.arrive(state, three, k, alpha, t);
      queue.finish(state, three);
      return [...state.subarray(0, 4)].map((v) => Math.round(v * 1e6) / 1e6);
    };
    // Green (0.1) in front of red (0.5): green, then red through the 0.9 green left.
    expect(pixel([[0, 0.5, 5], [1, 0.1, 1]])).toEqual([0.45, 0.1, 0, 0.45]);
    // Blue (0.5) in front of both: blue, green through 0.5, red through 0.45.
    expect(pixel([[0, 0.5, 5], [1, 0.1, 1], [2, 0.5, 0.5]])).toEqual([0.225, 0.05, 0.5, 0.225]);
    // One place: blue arriving behind red pushes red out, and the bucket, nearer than red, goes first.
    expect(pixel([[0, 0.5, 5], [1, 0.1, 1], [2, 0.5, 8]], 1)).toEqual([0.45, 0.1, 0.225, 0.225]);
  });

  test('an alpha bound outside (0, 1] is refused', () => {
    expect(() => manyPixelOrders([{ kind: 'faint', queue: 4, below: 0, front: false }], WIDTH, HEIGHT)).toThrow(/alpha bound/);
    expect(() => manyPixelOrders([{ kind: 'faint', queue: 0, below: 0.1, front: false }], WIDTH, HEIGHT)).toThrow(/whole number/);
  });
});
