/**
 * The radix sort's shape for each ranking and subgroup size: what the WGSL
 * prelude declares and what fits a device's workgroup memory. (The sorts
 * themselves run in tests/gpu/gpu-radix-sort.test.ts.)
 */
import { describe, expect, test } from 'vitest';
import {
  chooseRadixLayout, MAX_PORTABLE_TILE, MIN_BLOCK_TILES, radixPrelude, SCAN_BLOCKS, SCAN_MAX_LANES, scanBlockTiles, tileBits, WORKGROUP_SIZE,
} from '../../src/sort/radix-layout';

/** WebGPU's default limits, SwiftShader's workgroup memory, and what an H100 offers through Dawn. */
const DEFAULT_LIMITS = { maxComputeWorkgroupStorageSize: 16384, maxComputeInvocationsPerWorkgroup: 256, maxComputeWorkgroupsPerDimension: 65535 };
const MID_LIMITS = { ...DEFAULT_LIMITS, maxComputeWorkgroupStorageSize: 32768 };
const LARGE_LIMITS = { ...DEFAULT_LIMITS, maxComputeWorkgroupStorageSize: 49152, maxComputeInvocationsPerWorkgroup: 1024 };

describe('subgroup ranking layouts', () => {
  // [smallest, widest subgroup] → workgroup size, subgroups per workgroup, mask words.
  const cases = [
    { sizes: { min: 4, max: 4 }, workgroupSize: 64, maxSubgroups: 16, maskWords: 1 },
    { sizes: { min: 32, max: 32 }, workgroupSize: 256, maxSubgroups: 8, maskWords: 1 },
    { sizes: { min: 64, max: 64 }, workgroupSize: 256, maxSubgroups: 4, maskWords: 4 },
    { sizes: { min: 32, max: 64 }, workgroupSize: 256, maxSubgroups: 8, maskWords: 4 },
    { sizes: { min: 8, max: 128 }, workgroupSize: 128, maxSubgroups: 16, maskWords: 4 },
  ];
  test.each(cases)('subgroups of $sizes.min to $sizes.max lanes', ({ sizes, workgroupSize, maxSubgroups, maskWords }) => {
    for (const limits of [MID_LIMITS, LARGE_LIMITS]) {
      const layout = chooseRadixLayout(limits, { ranking: 'subgroup', subgroupSizes: sizes });
      expect(layout.workgroupSize).toBe(workgroupSize);
      expect(layout.maxSubgroups).toBe(maxSubgroups);
      expect(layout.subgroupMaxSize).toBe(sizes.max);
      expect(layout.tile).toBe(layout.workgroupSize * layout.itemsPerInvocation);
      // Every subgroup walks whole runs of the tile: the workgroup is a whole number of the widest subgroups.
      expect(layout.workgroupSize % sizes.max).toBe(0);
      const prelude = radixPrelude(layout);
      expect(prelude.startsWith('enable subgroups;')).toBe(true);
      expect(prelude).toContain(`const MAX_SUBGROUPS: u32 = ${maxSubgroups}u;`);
      expect(prelude).toContain(maskWords === 1 ? 'alias LaneMask = u32;' : 'alias LaneMask = vec4<u32>;');
    }
  });

  test('bigger tiles where the device has more workgroup memory', () => {
    const sizes = { min: 64, max: 64 };
    const small = chooseRadixLayout(DEFAULT_LIMITS, { ranking: 'subgroup', subgroupSizes: sizes });
    const large = chooseRadixLayout(MID_LIMITS, { ranking: 'subgroup', subgroupSizes: sizes });
    expect(small.itemsPerInvocation).toBeLessThan(large.itemsPerInvocation);
  });

  test('16 subgroups of histograms do not fit the default 16 KiB: a clear error (auto then ranks portably)', () => {
    expect(() => chooseRadixLayout(DEFAULT_LIMITS, { ranking: 'subgroup', subgroupSizes: { min: 4, max: 4 } })).toThrow(/16384 bytes/);
  });

  test('a workgroup holds whole subgroups of the widest size, or the layout is refused', () => {
    // 4 to 128 lanes: 128 invocations would need 32 histograms (32 KiB).
    expect(() => chooseRadixLayout(MID_LIMITS, { ranking: 'subgroup', subgroupSizes: { min: 4, max: 128 } })).toThrow(/32768 bytes/);
  });

  test('pairs per invocation: a multiple of 4 up to 32, else a clear error', () => {
    const sizes = { min: 32, max: 32 };
    expect(chooseRadixLayout(LARGE_LIMITS, { ranking: 'subgroup', subgroupSizes: sizes, itemsPerInvocation: 32 }).tile).toBe(32 * 256);
    expect(() => chooseRadixLayout(LARGE_LIMITS, { ranking: 'subgroup', subgroupSizes: sizes, itemsPerInvocation: 36 })).toThrow(
      /subgroup ranking takes 4 to 32 .*asked for 36/,
    );
  });

  test('refuses missing or impossible subgroup sizes', () => {
    for (const sizes of [undefined, { min: 0, max: 0 }, { min: 3, max: 32 }, { min: 64, max: 32 }, { min: 4, max: 256 }]) {
      expect(() => chooseRadixLayout(DEFAULT_LIMITS, { ranking: 'subgroup', subgroupSizes: sizes })).toThrow(/subgroup sizes/);
    }
  });
});

describe('portable layouts', () => {
  test('use the portable workgroup size, no subgroup extension, and fit the limits', () => {
    for (const limits of [DEFAULT_LIMITS, LARGE_LIMITS]) {
      const layout = chooseRadixLayout(limits);
      expect(layout.ranking).toBe('portable');
      expect(layout.workgroupSize).toBe(WORKGROUP_SIZE);
      expect(radixPrelude(layout)).not.toContain('subgroups');
      expect(4 * layout.sharedWords).toBeLessThanOrEqual(limits.maxComputeWorkgroupStorageSize);
    }
  });

  test('pairs per invocation: a multiple of 4 up to 16 that fits, else a clear error', () => {
    expect(chooseRadixLayout(LARGE_LIMITS, { itemsPerInvocation: 16 }).tile).toBe(16 * WORKGROUP_SIZE);
    expect(chooseRadixLayout(LARGE_LIMITS, { itemsPerInvocation: 4 }).tile).toBe(4 * WORKGROUP_SIZE);
    expect(() => chooseRadixLayout(LARGE_LIMITS, { itemsPerInvocation: 6 })).toThrow(/4 to 16 pairs per invocation in steps of 4 \(asked for 6\)/);
    expect(() => chooseRadixLayout(LARGE_LIMITS, { itemsPerInvocation: 20 })).toThrow(/portable ranking takes 4 to 16 .*asked for 20/);
    expect(() => chooseRadixLayout(LARGE_LIMITS, { itemsPerInvocation: 0 })).toThrow(/asked for 0/);
    expect(() => chooseRadixLayout({ ...DEFAULT_LIMITS, maxComputeWorkgroupStorageSize: 8192 }, { itemsPerInvocation: 12 })).toThrow(/8192 bytes/);
    // 16 where it fits (the fastest measured), else 12: WebGPU's default 16 KiB holds 12.
    expect(chooseRadixLayout(MID_LIMITS).itemsPerInvocation).toBe(16);
    expect(chooseRadixLayout(DEFAULT_LIMITS).itemsPerInvocation).toBe(12);
  });
});

test('the scan phase: blocks of at least MIN_BLOCK_TILES tiles, at most SCAN_BLOCKS of them, the same in TypeScript and WGSL', () => {
  expect(scanBlockTiles(0)).toBe(MIN_BLOCK_TILES);
  expect(scanBlockTiles(1)).toBe(MIN_BLOCK_TILES);
  expect(scanBlockTiles(MIN_BLOCK_TILES * SCAN_BLOCKS)).toBe(MIN_BLOCK_TILES);
  expect(scanBlockTiles(MIN_BLOCK_TILES * SCAN_BLOCKS + 1)).toBe(MIN_BLOCK_TILES + 1);
  expect(Math.ceil(4096 / scanBlockTiles(4096))).toBeLessThanOrEqual(SCAN_BLOCKS);
  const layout = chooseRadixLayout(DEFAULT_LIMITS);
  expect(layout.scanBlocks).toBe(SCAN_BLOCKS);
  const prelude = radixPrelude(layout);
  expect(prelude).toContain(`const SCAN_BLOCKS: u32 = ${SCAN_BLOCKS}u;`);
  expect(prelude).toContain(`return max(${MIN_BLOCK_TILES}u, (num_tiles + SCAN_BLOCKS - 1u) / SCAN_BLOCKS);`);
  // Tests cap the blocks to reach longer blocks at small sizes; never above the default.
  const capped = chooseRadixLayout(DEFAULT_LIMITS, { scanBlocks: 2 });
  expect(capped.scanBlocks).toBe(2);
  expect(scanBlockTiles(25, capped.scanBlocks)).toBe(13);
  expect(radixPrelude(capped)).toContain('const SCAN_BLOCKS: u32 = 2u;');
  expect(chooseRadixLayout(DEFAULT_LIMITS, { scanBlocks: 1e9 }).scanBlocks).toBe(SCAN_BLOCKS);
});

test('the scan phase splits the digits into quads over invocations and at most SCAN_MAX_LANES lanes', () => {
  const lanes = (layout: ReturnType<typeof chooseRadixLayout>) => {
    const prelude = radixPrelude(layout);
    const value = (name: string) => Number(new RegExp(`const ${name}: u32 = (\\d+)u;`).exec(prelude)?.[1]);
    return [value('QUADS'), value('QUADS_PER_LANE_ROW'), value('QUADS_PER_INVOCATION'), value('SCAN_LANES')];
  };
  // 8-bit digits, 256 invocations: 64 quads side by side, 4 lanes.
  expect(lanes(chooseRadixLayout(DEFAULT_LIMITS))).toEqual([64, 64, 1, SCAN_MAX_LANES]);
  // 4-bit digits: 4 quads; the lanes stop at SCAN_MAX_LANES (the other invocations only join the barriers).
  expect(lanes(chooseRadixLayout(DEFAULT_LIMITS, { digitBits: 4 }))).toEqual([4, 4, 1, SCAN_MAX_LANES]);
  // Fewer invocations than quads: each takes two, in one lane.
  expect(lanes(chooseRadixLayout(DEFAULT_LIMITS, { workgroupSize: 32, itemsPerInvocation: 8 }))).toEqual([64, 32, 2, 1]);
});

describe('requested workgroup sizes', () => {
  test('a larger workgroup where the device allows it; refused where it does not suit', () => {
    expect(chooseRadixLayout(LARGE_LIMITS, { workgroupSize: 512, itemsPerInvocation: 8 }).tile).toBe(4096);
    const sizes = { min: 32, max: 32 };
    expect(chooseRadixLayout(LARGE_LIMITS, { ranking: 'subgroup', subgroupSizes: sizes, workgroupSize: 512, itemsPerInvocation: 12 }).maxSubgroups).toBe(16);
    expect(() => chooseRadixLayout(DEFAULT_LIMITS, { workgroupSize: 512 })).toThrow(/allows 256/);
    expect(() => chooseRadixLayout(LARGE_LIMITS, { workgroupSize: 384 })).toThrow(/power of two/);
    // 1024 invocations of 32 lanes: 32 histograms, more than a workgroup keeps.
    expect(() => chooseRadixLayout(LARGE_LIMITS, { ranking: 'subgroup', subgroupSizes: sizes, workgroupSize: 1024 })).toThrow(/at most 16/);
  });

  test('portable tiles past 4,096 pairs: nibble, position and rank of a pair still share one word', () => {
    const big = chooseRadixLayout(LARGE_LIMITS, { workgroupSize: 1024, itemsPerInvocation: 8 });
    expect(big.tile).toBe(8192);
    expect(radixPrelude(big)).toContain('const TILE_BITS: u32 = 13u;');
    expect(radixPrelude(chooseRadixLayout(LARGE_LIMITS))).toContain('const TILE_BITS: u32 = 12u;');
    expect([256, 3072, 4096, 4097, 16384].map(tileBits)).toEqual([8, 12, 12, 13, 14]);
    // 4 bits of nibble, then position and rank (radix_scatter.wgsl).
    expect(4 + 2 * tileBits(MAX_PORTABLE_TILE)).toBeLessThanOrEqual(32);
    // 16 pairs in 1,024 invocations: the staged tile alone takes 64 KiB.
    expect(() => chooseRadixLayout(LARGE_LIMITS, { workgroupSize: 1024, itemsPerInvocation: 16 })).toThrow(/49152 bytes/);
    // Past MAX_PORTABLE_TILE the ranks would not fit their word, whatever the memory: refused by name.
    const huge = { ...LARGE_LIMITS, maxComputeInvocationsPerWorkgroup: 2048, maxComputeWorkgroupStorageSize: 1 << 20 };
    expect(chooseRadixLayout(huge, { workgroupSize: 1024, itemsPerInvocation: 16 }).tile).toBe(MAX_PORTABLE_TILE);
    expect(() => chooseRadixLayout(huge, { workgroupSize: 2048, itemsPerInvocation: 16 })).toThrow(/portable ranking's tiles hold at most 16384 pairs/);
  });
});
