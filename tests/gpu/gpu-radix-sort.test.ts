/**
 * The GPU radix sort against the CPU reference, on a real WebGPU device
 * (Dawn over SwiftShader in CI). Values are the original positions, so any
 * instability shows as a value mismatch. A test's cases on one
 * configuration run as one batch (radix-sort-batch.ts): no wait between
 * sorts, one readback at the end; a wrong case is named with its
 * configuration, size, key pattern, bits and where it first differs.
 *
 * Sizes: on SwiftShader one pass over 1M pairs costs seconds of CPU, and
 * each configuration's pipelines seconds more, so the large cases take the
 * fewest pairs that reach what they test. Nothing in the sort changes with
 * the number of pairs beyond the number of tiles: the count and scatter
 * phases see one tile each (and a 2D grid past the dispatch limit), the
 * scan the number of tiles, its blocks of tiles and its own workgroup size.
 * So 255, 256 and 257 tiles, long scan blocks and 2D grids are reached
 * with small tiles, and the shipped layouts are sorted up to 33 tiles
 * (5 scan blocks, more than the scan has lanes), not at 1M pairs.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createNodeGpuContext } from '../../src/gpu/node-gpu';
import { GpuRadixSort, type GpuRadixSortOptions } from '../../src/sort/gpu-radix-sort';
import { KEY_PATTERNS, type KeyPattern } from '../../src/sort/test-keys';
import { MIN_BLOCK_TILES, type DigitBits, type Ranking } from '../../src/sort/radix-layout';
import { checkSubgroupRanking } from '../../src/sort/subgroup-check';
import { expectSortsCorrect, type SortCase } from './radix-sort-batch';

/** Both rankings run every test; SwiftShader has subgroups (4 lanes), so neither is skipped. */
const RANKINGS: readonly Ranking[] = ['portable', 'subgroup'];
const DIGITS: readonly DigitBits[] = [8, 4];
const KEY_WIDTHS = [16, 24, 32] as const;

let device: GPUDevice;

/**
 * A sorter of one configuration, made once for the file: a configuration's
 * pipelines took 1 to 10 s of CPU each to compile on SwiftShader here.
 */
interface Config {
  name: string;
  options: GpuRadixSortOptions;
  sorter: GpuRadixSort;
  /** Settles when `sorter` is made. */
  made: Promise<unknown>;
}

const configs: Config[] = [];

function config(name: string, options: Omit<GpuRadixSortOptions, 'capacity' | 'label'>): Config {
  const c: Config = { name, options: { capacity: 1024, ...options, label: `test.${name}` }, sorter: null as unknown as GpuRadixSort, made: Promise.resolve() };
  configs.push(c);
  return c;
}

/** Waits until these configurations' sorters are made. */
async function ready(...wanted: Config[]): Promise<void> {
  await Promise.all(wanted.map((c) => c.made));
}

/** Each configuration's cases, there as soon as its sorter is (so its sorts start while later sorters compile). */
function sortsOf(wanted: readonly Config[], make: (c: Config) => SortCase[]): Promise<SortCase[]>[] {
  return wanted.map(async (c) => {
    await c.made;
    return make(c);
  });
}

/** The shipped layout for each ranking and digit width. */
const layouts = RANKINGS.flatMap((ranking) => DIGITS.map((digitBits) => ({ ranking, digitBits, c: config(`${ranking}/${digitBits}-bit`, { ranking, digitBits }) })));
const shipped = layouts.map((l) => l.c);
const shipped8 = layouts.filter((l) => l.digitBits === 8).map((l) => l.c);
/**
 * Tiles of 256 pairs, so that 257 of them cost 66k pairs: for each ranking
 * and digit width, a workgroup of 64 with 4 pairs per invocation (the
 * subgroup ranking's default workgroup on SwiftShader; for 4-bit digits
 * every workgroup size gives the shipped scan's 4 lanes).
 */
const smallTiles = [
  config('portable/workgroups of 64, 4 per invocation', { ranking: 'portable', workgroupSize: 64, itemsPerInvocation: 4 }),
  config('portable/4-bit/workgroups of 64, 4 per invocation', { ranking: 'portable', digitBits: 4, workgroupSize: 64, itemsPerInvocation: 4 }),
  config('subgroup/8-bit/4 per invocation', { ranking: 'subgroup', digitBits: 8, itemsPerInvocation: 4 }),
  config('subgroup/4-bit/4 per invocation', { ranking: 'subgroup', digitBits: 4, itemsPerInvocation: 4 }),
];
// The variants below change what they test and take 4 pairs per invocation
// (the fewest), so that the tile counts they need cost a quarter (portable)
// or an eighth (subgroup) of the pairs; each keeps its ranking's default
// workgroup, whose size (with the digit width) sets the scan's lanes.
/** Scan blocks of more than MIN_BLOCK_TILES tiles (as past SCAN_BLOCKS blocks), at most 2 blocks. */
const scanBlocks = RANKINGS.map((ranking) => config(`${ranking}/scanBlocks 2`, { ranking, digitBits: 8, scanBlocks: 2, itemsPerInvocation: 4 }));
/** A 2D tile grid (used past 65,535 tiles) at small sizes. */
const grid = RANKINGS.map((ranking) => config(`${ranking}/7 workgroups a dimension`, { ranking, digitBits: 8, maxWorkgroupsPerDimension: 7, itemsPerInvocation: 4 }));
// Workgroups smaller than the radix (256 digits): every phase then walks
// several digits per invocation (the scatter's prefetched tile counts, the
// histogram's tile counts, the scans). Larger workgroups (512 on big GPUs)
// need a device that allows them; SwiftShader allows 256. The portable
// ranking also runs at its fewest, most (the default where it fits) and a
// middle number of pairs per invocation: at 16 an invocation's 4-bit nibble
// counters would overflow if its last pair were counted in them (the
// equal-key patterns give every pair the same nibble).
const workgroups = [
  config('portable/workgroups of 128, 12 per invocation', { ranking: 'portable', workgroupSize: 128, itemsPerInvocation: 12 }),
  config('portable/workgroups of 128, 16 per invocation', { ranking: 'portable', workgroupSize: 128, itemsPerInvocation: 16 }),
  smallTiles[0]!,
  config('subgroup/workgroups of 32', { ranking: 'subgroup', workgroupSize: 32 }),
];
// NVIDIA's 32 lanes take one-word ballot masks (the subgroup layouts above
// use them on SwiftShader's 4 lanes); AMD's 64 lanes take four words. Sized
// for 64 lanes, the masks must still rank 4-lane subgroups exactly. (With 4
// to 128 lanes the histograms do not fit SwiftShader's 32 KiB:
// radix-layout.test.ts.)
const wideMasks = config('subgroup/masks for 64 lanes', { ranking: 'subgroup', widestSubgroup: 64 });

/** The device without the subgroups feature, and the sorter 'auto' gives it. */
let plain: Promise<{ device: GPUDevice; sorter: GpuRadixSort }>;
/** Set when the file ends (all done, or stopped after a failure): the sorters not yet made are not made. */
let ended = false;

function unlessEnded<T>(make: () => Promise<T>): () => Promise<T> {
  return () => (ended ? Promise.reject(new Error('not made: the tests ended first')) : make());
}

beforeAll(async () => {
  ({ device } = await createNodeGpuContext('gpu-radix-sort.test'));
  // The sorters are made one after another in the background, in the order
  // the tests need them: a configuration's pipelines compile on this thread
  // while SwiftShader's threads sort the cases of the tests before it.
  let chain: Promise<unknown> = Promise.resolve();
  for (const c of configs) {
    c.made = chain = chain.then(unlessEnded(async () => (c.sorter = await GpuRadixSort.create(device, c.options))));
    c.made.catch(() => {}); // a test that waits for it reports the failure
  }
  plain = chain.then(unlessEnded(async () => {
    const { device: plainDevice } = await createNodeGpuContext('gpu-radix-sort.test.plain', { withoutFeatures: ['subgroups'] });
    return { device: plainDevice, sorter: await GpuRadixSort.create(plainDevice, { capacity: 100, ranking: 'auto', label: 'test.plain' }) };
  }));
  plain.catch(() => {});
});

afterAll(async () => {
  ended = true;
  await Promise.allSettled([...configs.map((c) => c.made), plain]);
  for (const c of configs) c.sorter?.destroy();
  const p = await plain?.catch(() => null);
  p?.sorter.destroy();
  p?.device.destroy();
  device?.destroy();
});

function cases(c: Config, sizes: readonly number[], patterns: readonly KeyPattern[], widths: readonly number[], seed?: (n: number) => number): SortCase[] {
  return sizes.flatMap((n) =>
    patterns.flatMap((pattern) => widths.map((keyBits) => ({ config: c.name, sorter: c.sorter, n, pattern, keyBits, ...(seed ? { seed: seed(n) } : {}) }))),
  );
}

test('sizes around one tile (0, 1, 2, tile ± 1, 3 tiles + 17): every key pattern, 16/24/32-bit keys', async () => {
  await expectSortsCorrect(device, sortsOf(shipped, (c) => {
    const tile = c.sorter.layout.tile;
    return cases(c, [0, 1, 2, tile - 1, tile, tile + 1, 3 * tile + 17], KEY_PATTERNS, KEY_WIDTHS);
  }));
});

test('255, 256 and 257 tiles (count and scatter workgroups; 32 and 33 scan blocks): random keys of 16, 24 and 32 bits', async () => {
  // One key width a size: the widths change the passes, not what a pass does with the tiles.
  await expectSortsCorrect(device, sortsOf(smallTiles, (c) => {
    const tile = c.sorter.layout.tile;
    return [255, 256, 257].flatMap((tiles, i) => cases(c, [tiles * tile], ['random'], [KEY_WIDTHS[i]!], (n) => n ^ 0x5bd1e995));
  }));
});

test('either side of a scan block boundary (one block, then a second of one tile), and more blocks than the scan has lanes', async () => {
  await expectSortsCorrect(device, sortsOf(shipped, (c) => {
    const tile = c.sorter.layout.tile;
    return [
      ...cases(c, [MIN_BLOCK_TILES * tile, MIN_BLOCK_TILES * tile + 1], ['random'], [32]),
      // 33 tiles: 5 blocks over the 4 lanes of the portable 8-bit scan (the
      // small tiles above reach 33 blocks in the other shipped scans).
      ...(c === shipped[0] ? cases(c, [4 * MIN_BLOCK_TILES * tile + 5], ['random'], [16]) : []),
    ];
  }));
});

test('odd key widths sort only the low bits (a short last digit)', async () => {
  await expectSortsCorrect(device, sortsOf(shipped, (c) => cases(c, [5000], ['random'], [1, 7, 13, 20, 31])));
});

test('many tiles with few distinct digits: equal, high bits only, low bits only, reversed', async () => {
  // 17 tiles: 3 scan blocks (8, 8, 1), so one digit's run crosses tiles and blocks.
  await expectSortsCorrect(device, sortsOf(shipped8, (c) => {
    const tile = c.sorter.layout.tile;
    return cases(c, [17 * tile - 5], ['equal', 'high-bits', 'low-bits', 'reversed'], [32]);
  }));
});

describe.each(RANKINGS)('%s ranking', (ranking) => {
  test('one sorter reused across sizes, growing and shrinking; a GPU count past its capacity sorts the capacity', async () => {
    await ready(...shipped); // its pipelines are theirs (Dawn makes a pipeline once per device)
    const sorter = await GpuRadixSort.create(device, { capacity: 10, ranking, label: 'test.reuse' });
    try {
      const grew: boolean[] = [];
      const sizes = [10, 5000, 3, 70_000, 0, 4096, 69_999];
      const reused: SortCase[] = sizes.map((n) => ({
        config: `${ranking}/reused`,
        sorter,
        n,
        pattern: 'random',
        // The two largest in two passes: the growth is what is tested.
        keyBits: n > 10_000 ? 16 : 32,
        before: () => {
          grew.push(sorter.ensureCapacity(n));
          expect(sorter.capacity).toBeGreaterThanOrEqual(n);
        },
      }));
      // The capacity is now 70,000: the prepare step clamps the count to it.
      reused.push({ config: `${ranking}/reused`, sorter, n: 70_000, pattern: 'random', keyBits: 16, seed: 5, gpuCount: { count: 71_000, offset: 8 } });
      await expectSortsCorrect(device, [reused]);
      expect(grew).toEqual([false, true, false, true, false, false, false]);
      expect(sorter.capacity).toBe(70_000);
      expect(sorter.ensureCapacity(100)).toBe(false);
    } finally {
      sorter.destroy();
    }
  });
});

test('the count is read from a GPU buffer (indirect dispatch), at an offset', async () => {
  await expectSortsCorrect(device, sortsOf(shipped8, (c) =>
    [0, 1, 12_345, 50_000].map((count): SortCase => ({ config: c.name, sorter: c.sorter, n: 50_000, pattern: 'random', keyBits: 32, seed: 99, gpuCount: { count, offset: 8 } })),
  ));
});

test('a GPU count under a bound known on the CPU is sorted by direct dispatches for the bound, the count clamped to it; indirect dispatch again without one', async () => {
  await expectSortsCorrect(device, sortsOf(shipped8, (c) => [
    ...[0, 1, 12_345, 50_000].map((count): SortCase => ({ config: c.name, sorter: c.sorter, n: 50_000, pattern: 'random', keyBits: 32, seed: 99, gpuCount: { count, offset: 4, bound: 50_000 } })),
    // A count past its bound sorts the bound's pairs.
    { config: c.name, sorter: c.sorter, n: 50_000, pattern: 'random', keyBits: 24, seed: 7, gpuCount: { count: 50_000, bound: 30_001 } },
    // The bound is written once and stays until another is given: without one the next sort is indirect again.
    { config: c.name, sorter: c.sorter, n: 50_000, pattern: 'random', keyBits: 32, seed: 9, gpuCount: { count: 40_000 } },
  ]));
});

test('scan blocks longer than MIN_BLOCK_TILES (as past SCAN_BLOCKS blocks)', async () => {
  // At most 2 blocks: 25 tiles make blocks of 13 and 12, 9 tiles blocks of
  // 8 and 1; each count phase adds its tiles into the block's sums, and
  // each scan workgroup walks its own block after reading both. 140 tiles
  // make blocks of 70, whose lanes walk more rows than they load at once
  // (16-bit keys: the walk is the same in every pass).
  await expectSortsCorrect(device, sortsOf(scanBlocks, (c) => {
    const tile = c.sorter.layout.tile;
    return [
      ...cases(c, [9 * tile], ['random'], [32, 13]),
      ...cases(c, [25 * tile - 7], KEY_PATTERNS, [32]),
      ...cases(c, [25 * tile - 7], ['random'], [13]),
      ...cases(c, [140 * tile - 3], ['random'], [16]),
      // The same through the GPU-side count (the prepare step sizes the scan's dispatch), and under a
      // bound of 140 tiles (blocks of 70 dispatched, the count's 25 tiles in the first).
      { config: c.name, sorter: c.sorter, n: 25 * tile - 7, pattern: 'random', keyBits: 24, seed: 17, gpuCount: { count: 25 * tile - 7 } },
      { config: c.name, sorter: c.sorter, n: 140 * tile - 3, pattern: 'random', keyBits: 24, seed: 18, gpuCount: { count: 25 * tile - 7, bound: 140 * tile - 3 } },
    ];
  }));
});

test('more tiles than one dispatch dimension allows use a 2D grid', async () => {
  // With at most 7 workgroups per dimension, 50 tiles need a 7 x 8 grid.
  await expectSortsCorrect(device, sortsOf(grid, (c) => {
    const n = 50 * c.sorter.layout.tile - 3;
    return [
      ...cases(c, [n], ['random'], [32]),
      ...cases(c, [n], ['low-bits'], [24]),
      { config: c.name, sorter: c.sorter, n, pattern: 'random', keyBits: 16, gpuCount: { count: n } },
      // A bound's grid (7 x 8) with a count of 5 tiles: the tiles are numbered along the bound's rows,
      // 7 wide, not the count's 5 (which would give workgroups (5, 0) and (0, 1) the same tile).
      { config: c.name, sorter: c.sorter, n, pattern: 'random', keyBits: 16, seed: 3, gpuCount: { count: 5 * c.sorter.layout.tile - 1, bound: n } },
    ];
  }));
});

test('bad arguments are refused with a clear error', async () => {
  await ready(shipped[0]!);
  const sorter = shipped[0]!.sorter;
  const encoder = device.createCommandEncoder();
  expect(() => sorter.encode(encoder, { count: sorter.capacity + 1 })).toThrow(/exceeds the sorter's capacity/);
  expect(() => sorter.encode(encoder, { count: -1 })).toThrow(/non-negative integer/);
  expect(() => sorter.encode(encoder, { count: 10, keyBits: 33 })).toThrow(/keyBits/);
  expect(() => sorter.encode(encoder, {})).toThrow(/count/);
  expect(() => sorter.encode(encoder, { count: 1, countBuffer: { buffer: sorter.keys } })).toThrow(/either count or countBuffer/);
  expect(() => sorter.encode(encoder, { count: 1, countBound: 4 })).toThrow(/countBound bounds a countBuffer/);
  expect(() => sorter.encode(encoder, { countBuffer: { buffer: sorter.keys }, countBound: sorter.capacity + 1 })).toThrow(/countBound .* exceeds the sorter's capacity/);
  expect(() => sorter.ensureCapacity(GpuRadixSort.maxCapacity(device) + 4)).toThrow(/exceed/);
});

test('workgroups smaller than the radix, and 4, 12 or 16 pairs per invocation: sizes around a tile and many tiles, every key pattern', async () => {
  await expectSortsCorrect(device, sortsOf(workgroups, (c) => {
    const tile = c.sorter.layout.tile;
    // 17 tiles: 3 scan blocks; 40: 5, more than any of these workgroups has scan lanes.
    return [...cases(c, [1, tile - 1, tile + 1, 17 * tile + 3], KEY_PATTERNS, [32]), ...cases(c, [40 * tile + 3], ['random'], [32, 13])];
  }));
});

test('subgroup ballot masks sized for 64 lanes rank 4-lane subgroups exactly', async () => {
  await expectSortsCorrect(device, sortsOf([wideMasks], (c) => {
    const tile = c.sorter.layout.tile;
    return [...cases(c, [1, tile - 1, 3 * tile + 17], KEY_PATTERNS, [32]), ...cases(c, [2 * tile + 5], ['random'], [13]), ...cases(c, [40_000], ['random'], [16])];
  }));
});

test('each configuration has the layout it asks for', async () => {
  await ready(...configs);
  for (const { ranking, digitBits, c } of layouts) expect([c.sorter.ranking, c.sorter.layout.digitBits]).toEqual([ranking, digitBits]);
  const shippedWorkgroup = (ranking: Ranking) => layouts.find((l) => l.ranking === ranking)!.c.sorter.layout.workgroupSize;
  for (const c of [...scanBlocks, ...grid]) {
    expect(c.sorter.ranking).toBe(c.options.ranking);
    expect(c.sorter.layout.workgroupSize).toBe(shippedWorkgroup(c.sorter.ranking));
  }
  for (const c of workgroups) {
    expect(c.sorter.layout.workgroupSize).toBe(c.options.workgroupSize);
    if (c.options.itemsPerInvocation) expect(c.sorter.layout.itemsPerInvocation).toBe(c.options.itemsPerInvocation);
  }
  expect(smallTiles.map((c) => [c.sorter.ranking, c.sorter.layout.digitBits, c.sorter.layout.tile])).toEqual(layouts.map(({ ranking, digitBits }) => [ranking, digitBits, 256]));
  expect(wideMasks.sorter.layout.subgroupMaxSize).toBe(64);
});

describe('choosing the ranking', () => {
  test('the default is the portable ranking, even where subgroups work', async () => {
    const sorter = await GpuRadixSort.create(device, { capacity: 100, label: 'test.default' });
    expect(sorter.ranking).toBe('portable');
    sorter.destroy();
  });

  test('auto picks the subgroup ranking on a device whose subgroups pass the check', async () => {
    expect(device.features.has('subgroups')).toBe(true);
    const sorter = await GpuRadixSort.create(device, { capacity: 100, ranking: 'auto', label: 'test.auto' });
    try {
      expect(sorter.ranking).toBe('subgroup');
      // SwiftShader's 4-lane subgroups: at most 16 subgroups of histograms, so 64 invocations.
      expect(sorter.layout.workgroupSize).toBe(64);
      expect(sorter.layout.maxSubgroups).toBe(16);
    } finally {
      sorter.destroy();
    }
  });

  test('the check refuses a ranking that sorts wrongly or cannot be built', async () => {
    const warn = console.warn;
    const warnings: string[] = [];
    console.warn = (message: string) => warnings.push(message);
    try {
      // A subgroup sorter that ignores the high half of every key: wrong order.
      const wrong = await checkSubgroupRanking(device, async () => {
        const sorter = await GpuRadixSort.create(device, { capacity: 1, ranking: 'subgroup', label: 'test.wrong' });
        const encode = sorter.encode.bind(sorter);
        sorter.encode = (encoder, options) => encode(encoder, { ...options, keyBits: Math.min(options.keyBits ?? 32, 8) });
        return sorter;
      });
      expect(wrong).toBe(false);
      const unbuildable = await checkSubgroupRanking(device, () => Promise.reject(new Error('no such shader')));
      expect(unbuildable).toBe(false);
      expect(warnings).toEqual([expect.stringMatching(/sorted .* wrongly .* using the portable ranking/), expect.stringMatching(/no such shader.*portable/)]);
    } finally {
      console.warn = warn;
    }
  });

  test('a device without subgroups gets the portable ranking from auto, which sorts there, and an error for subgroup', async () => {
    const { device: plainDevice, sorter } = await plain;
    expect(plainDevice.features.has('subgroups')).toBe(false);
    expect(sorter.ranking).toBe('portable');
    const tile = sorter.layout.tile;
    const c: Config = { name: 'portable/no subgroups', options: { capacity: 100 }, sorter, made: plain };
    await expectSortsCorrect(plainDevice, [cases(c, [1, tile + 1, 3 * tile + 17], ['random', 'equal'], [24, 32])]);
    await expect(GpuRadixSort.create(plainDevice, { capacity: 100, ranking: 'subgroup' })).rejects.toThrow(/subgroups/);
  });
});
