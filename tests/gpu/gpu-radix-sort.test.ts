/**
 * The GPU radix sort against the CPU reference, on a real WebGPU device
 * (Dawn over SwiftShader in CI). Values are the original positions, so any
 * instability shows as a value mismatch.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createNodeGpuContext } from '../../src/gpu/node-gpu';
import { GpuRadixSort, type SortEncodeOptions } from '../../src/sort/gpu-radix-sort';
import { CpuRadixSort } from '../../src/sort/cpu-sort';
import { referenceSortPairs } from '../../src/sort/reference-sort';
import { KEY_PATTERNS, identityValues, makeKeys, type KeyPattern } from '../../src/sort/test-keys';
import { readBufferU32 } from '../../src/gpu/readback';
import { MIN_BLOCK_TILES, type DigitBits, type Ranking } from '../../src/sort/radix-layout';
import { checkSubgroupRanking } from '../../src/sort/subgroup-check';

/** Both rankings run every test; SwiftShader has subgroups (4 lanes), so neither is skipped. */
const RANKINGS: readonly Ranking[] = ['portable', 'subgroup'];

let device: GPUDevice;
const sorters = new Map<string, GpuRadixSort>();

beforeAll(async () => {
  ({ device } = await createNodeGpuContext('gpu-radix-sort.test'));
});

afterAll(() => {
  for (const s of sorters.values()) s.destroy();
  device?.destroy();
});

/** One sorter per configuration, reused by every test of that configuration. */
async function sorterFor(
  ranking: Ranking,
  digitBits: DigitBits,
  extra: { maxWorkgroupsPerDimension?: number; scanBlocks?: number } = {},
): Promise<GpuRadixSort> {
  const key = `${ranking}/${digitBits}/${extra.maxWorkgroupsPerDimension ?? ''}/${extra.scanBlocks ?? ''}`;
  let s = sorters.get(key);
  if (!s) {
    s = await GpuRadixSort.create(device, { capacity: 1024, digitBits, ranking, ...extra, label: `test.sort${key}` });
    expect(s.ranking).toBe(ranking);
    sorters.set(key, s);
  }
  return s;
}

async function gpuSort(sorter: GpuRadixSort, keys: Uint32Array<ArrayBuffer>, values: Uint32Array<ArrayBuffer>, options: SortEncodeOptions) {
  sorter.ensureCapacity(keys.length);
  device.queue.writeBuffer(sorter.keys, 0, keys);
  device.queue.writeBuffer(sorter.values, 0, values);
  const encoder = device.createCommandEncoder();
  const out = sorter.encode(encoder, options);
  device.queue.submit([encoder.finish()]);
  const n = options.count ?? keys.length;
  return { keys: await readBufferU32(device, out.keys, n), values: await readBufferU32(device, out.values, n) };
}

function expectSameOrder(got: { keys: Uint32Array; values: Uint32Array }, want: { keys: Uint32Array; values: Uint32Array }) {
  expect(got.keys.length).toBe(want.keys.length);
  for (let i = 0; i < want.keys.length; i++) {
    if (got.keys[i] !== want.keys[i] || got.values[i] !== want.values[i]) {
      expect.fail(
        `first difference at ${i} of ${want.keys.length}: got (key ${got.keys[i]}, value ${got.values[i]}), want (key ${want.keys[i]}, value ${want.values[i]})`,
      );
    }
  }
}

/** The CPU radix sort (itself checked against the simple reference in the unit tests) for large inputs. */
function cpuReference(keys: Uint32Array, keyBits: number) {
  const k = keys.slice();
  const v = identityValues(keys.length);
  new CpuRadixSort(k.length).sort(k, v, k.length, keyBits);
  return { keys: k, values: v };
}

async function checkSort(sorter: GpuRadixSort, pattern: KeyPattern, n: number, keyBits: number, seed = n + keyBits) {
  const keys = makeKeys(pattern, n, seed);
  const got = await gpuSort(sorter, keys, identityValues(n), { count: n, keyBits });
  const want = n <= 20_000 ? referenceSortPairs(keys, identityValues(n), keyBits) : cpuReference(keys, keyBits);
  expectSameOrder(got, want);
}

describe.each(RANKINGS)('%s ranking', (ranking) => {
describe.each([8, 4] as const)('%i-bit digits', (digitBits) => {
  test('small sizes around one tile: every key pattern, 16/24/32-bit keys', async () => {
    const sorter = await sorterFor(ranking, digitBits);
    const tile = sorter.layout.tile;
    for (const n of [0, 1, 2, tile - 1, tile, tile + 1, 3 * tile + 17]) {
      for (const pattern of KEY_PATTERNS) {
        for (const keyBits of [16, 24, 32]) await checkSort(sorter, pattern, n, keyBits);
      }
    }
  });

  test('255, 256 and 257 tiles and a random size near 1M (random keys, 16/24/32 bits)', async () => {
    const sorter = await sorterFor(ranking, digitBits);
    const tile = sorter.layout.tile;
    const nearMillion = 1_000_000 + Math.floor(Math.random() * 48_576);
    const sizes = digitBits === 8 ? [255 * tile, 256 * tile, 257 * tile, nearMillion] : [257 * tile];
    for (const n of sizes) {
      for (const keyBits of [16, 24, 32]) await checkSort(sorter, 'random', n, keyBits, n ^ 0x5bd1e995);
    }
  });

  test('either side of a scan block boundary (one block, then a second of one tile)', async () => {
    const sorter = await sorterFor(ranking, digitBits);
    const tile = sorter.layout.tile;
    for (const n of [MIN_BLOCK_TILES * tile, MIN_BLOCK_TILES * tile + 1]) await checkSort(sorter, 'random', n, 32);
  });

  test('odd key widths sort only the low bits (a short last digit)', async () => {
    const sorter = await sorterFor(ranking, digitBits);
    for (const keyBits of [1, 7, 13, 20, 31]) await checkSort(sorter, 'random', 5000, keyBits);
  });
});

test('large inputs with few distinct digits: equal, high bits only, low bits only', async () => {
  const sorter = await sorterFor(ranking, 8);
  const n = 257 * sorter.layout.tile;
  for (const pattern of ['equal', 'high-bits', 'low-bits', 'reversed'] as const) await checkSort(sorter, pattern, n, 32);
});

test('one sorter reused across sizes, growing and shrinking', async () => {
  const sorter = await GpuRadixSort.create(device, { capacity: 10, ranking, label: 'test.reuse' });
  try {
    for (const n of [10, 5000, 3, 70_000, 0, 4096, 69_999]) {
      const grew = sorter.ensureCapacity(n);
      expect(sorter.capacity).toBeGreaterThanOrEqual(n);
      if (n === 70_000) expect(grew).toBe(true);
      await checkSort(sorter, 'random', n, 32);
    }
    expect(sorter.ensureCapacity(100)).toBe(false);
  } finally {
    sorter.destroy();
  }
});

test('the count is read from a GPU buffer (indirect dispatch), clamped to the capacity', async () => {
  const sorter = await sorterFor(ranking, 8);
  const n = 50_000;
  sorter.ensureCapacity(n);
  const keys = makeKeys('random', n, 99);
  const countBuffer = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  for (const count of [0, 1, 12_345, n]) {
    device.queue.writeBuffer(countBuffer, 8, new Uint32Array([count]));
    const got = await gpuSort(sorter, keys, identityValues(n), { countBuffer: { buffer: countBuffer, offset: 8 }, keyBits: 32 });
    const head = keys.slice(0, count);
    const want = referenceSortPairs(head, identityValues(count), 32);
    expectSameOrder({ keys: got.keys.subarray(0, count), values: got.values.subarray(0, count) }, want);
  }
  // A count beyond the capacity sorts the whole capacity and writes nothing past it.
  const capacity = sorter.capacity;
  const all = makeKeys('random', capacity, 5);
  device.queue.writeBuffer(countBuffer, 8, new Uint32Array([capacity + 1000]));
  const got = await gpuSort(sorter, all, identityValues(capacity), { countBuffer: { buffer: countBuffer, offset: 8 }, keyBits: 32 });
  expectSameOrder({ keys: got.keys.subarray(0, capacity), values: got.values.subarray(0, capacity) }, cpuReference(all, 32));
  countBuffer.destroy();
});

test('scan blocks longer than MIN_BLOCK_TILES (as past SCAN_BLOCKS blocks)', async () => {
  // At most 2 blocks: 25 tiles make blocks of 13 and 12, 9 tiles blocks of
  // 8 and 1; each count phase adds its tiles into the block's sums, and
  // each scan workgroup walks its own block after reading both. 140 tiles
  // make blocks of 70, whose lanes walk more rows than they load at once.
  const sorter = await sorterFor(ranking, 8, { scanBlocks: 2 });
  const tile = sorter.layout.tile;
  for (const n of [9 * tile, 25 * tile - 7]) {
    for (const pattern of KEY_PATTERNS) await checkSort(sorter, pattern, n, 32);
    await checkSort(sorter, 'random', n, 13);
  }
  await checkSort(sorter, 'random', 140 * tile - 3, 32);
  // The same through the GPU-side count (the prepare step sizes the scan's dispatch).
  const n = 25 * tile - 7;
  const keys = makeKeys('random', n, 17);
  const countBuffer = device.createBuffer({ size: 4, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  device.queue.writeBuffer(countBuffer, 0, new Uint32Array([n]));
  const got = await gpuSort(sorter, keys, identityValues(n), { countBuffer: { buffer: countBuffer }, keyBits: 24 });
  expectSameOrder(got, referenceSortPairs(keys, identityValues(n), 24));
  countBuffer.destroy();
});

test('more tiles than one dispatch dimension allows use a 2D grid', async () => {
  // With at most 7 workgroups per dimension, 50 tiles need a 7 x 8 grid.
  const sorter = await sorterFor(ranking, 8, { maxWorkgroupsPerDimension: 7 });
  const n = 50 * sorter.layout.tile - 3;
  await checkSort(sorter, 'random', n, 32);
  await checkSort(sorter, 'low-bits', n, 24);
});

});

test('bad arguments are refused with a clear error', async () => {
  const sorter = await sorterFor('portable', 8);
  const encoder = device.createCommandEncoder();
  expect(() => sorter.encode(encoder, { count: sorter.capacity + 1 })).toThrow(/exceeds the sorter's capacity/);
  expect(() => sorter.encode(encoder, { count: -1 })).toThrow(/non-negative integer/);
  expect(() => sorter.encode(encoder, { count: 10, keyBits: 33 })).toThrow(/keyBits/);
  expect(() => sorter.encode(encoder, {})).toThrow(/count/);
  expect(() => sorter.ensureCapacity(GpuRadixSort.maxCapacity(device) + 4)).toThrow(/exceed/);
});

// Workgroups smaller than the radix (256 digits): every phase then walks
// several digits per invocation (the scatter's prefetched tile counts, the
// histogram's tile counts, the scans). Larger workgroups (512 on big GPUs)
// need a device that allows them; SwiftShader allows 256. The portable
// ranking also runs at its fewest, most (the default where it fits) and a
// middle number of pairs per invocation: at 16 an invocation's 4-bit nibble
// counters would overflow if its last pair were counted in them (the
// equal-key patterns give every pair the same nibble).
describe.each([
  { ranking: 'portable' as const, workgroupSize: 128, items: 12 },
  { ranking: 'portable' as const, workgroupSize: 128, items: 16 },
  { ranking: 'portable' as const, workgroupSize: 64, items: 4 },
  { ranking: 'subgroup' as const, workgroupSize: 32, items: undefined },
])('$ranking ranking in workgroups of $workgroupSize, $items pairs per invocation', ({ ranking, workgroupSize, items }) => {
  test('sizes around a tile and many tiles, every key pattern', async () => {
    const sorter = await GpuRadixSort.create(device, {
      capacity: 1024,
      ranking,
      workgroupSize,
      ...(items ? { itemsPerInvocation: items } : {}),
      label: `test.sort.wg${workgroupSize}.i${items}`,
    });
    try {
      expect(sorter.layout.workgroupSize).toBe(workgroupSize);
      if (items) expect(sorter.layout.itemsPerInvocation).toBe(items);
      const tile = sorter.layout.tile;
      for (const n of [1, tile - 1, tile + 1, 40 * tile + 3]) {
        for (const pattern of KEY_PATTERNS) await checkSort(sorter, pattern, n, 32);
      }
      await checkSort(sorter, 'random', 40 * tile + 3, 13);
    } finally {
      sorter.destroy();
    }
  });
});

describe('subgroup ranking with masks for wider subgroups', () => {
  // NVIDIA's 32 lanes take one-word ballot masks (the 'subgroup ranking'
  // tests above use them on SwiftShader's 4 lanes); AMD's 64 lanes take four
  // words. Sized for 64 lanes, the masks must still rank 4-lane subgroups
  // exactly: every key pattern, partial tiles, short digits. (With 4 to 128
  // lanes the histograms do not fit SwiftShader's 32 KiB: radix-layout.test.ts.)
  test.each([64])('masks sized for %i lanes', async (widest) => {
    const sorter = await GpuRadixSort.create(device, { capacity: 1024, ranking: 'subgroup', widestSubgroup: widest, label: `test.wide${widest}` });
    try {
      expect(sorter.layout.subgroupMaxSize).toBe(widest);
      const tile = sorter.layout.tile;
      for (const pattern of KEY_PATTERNS) {
        for (const n of [1, tile - 1, 3 * tile + 17]) await checkSort(sorter, pattern, n, 32);
      }
      await checkSort(sorter, 'random', 2 * tile + 5, 13);
      await checkSort(sorter, 'random', 40_000, 16);
    } finally {
      sorter.destroy();
    }
  });
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

  test('a device without subgroups gets the portable ranking from auto and an error for subgroup', async () => {
    const { device: plain } = await createNodeGpuContext('gpu-radix-sort.test.plain', { withoutFeatures: ['subgroups'] });
    try {
      expect(plain.features.has('subgroups')).toBe(false);
      const sorter = await GpuRadixSort.create(plain, { capacity: 100, ranking: 'auto', label: 'test.plain' });
      expect(sorter.ranking).toBe('portable');
      sorter.destroy();
      await expect(GpuRadixSort.create(plain, { capacity: 100, ranking: 'subgroup' })).rejects.toThrow(/subgroups/);
    } finally {
      plain.destroy();
    }
  });
});
