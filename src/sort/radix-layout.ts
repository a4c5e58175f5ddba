/**
 * The shape of the GPU radix sort: workgroup size, pairs per invocation,
 * digit width. This file is the single source of truth for those numbers;
 * the WGSL phases read them from the prelude built here.
 */

/** Invocations per workgroup (the portable maximum every WebGPU device allows). */
export const WORKGROUP_SIZE = 256;

/** Digit widths the sort implements. */
export type DigitBits = 4 | 8;

/**
 * Default digit width: 8 bits (4 passes for 32-bit keys, 2 for 16-bit).
 * Measured on an NVIDIA H200 (Dawn/Vulkan, timestamp queries, median of 30
 * runs, 3072-pair tiles), 32-bit keys:
 *      pairs    8-bit digits   4-bit digits
 *        1M       0.151 ms       0.204 ms
 *        4M       0.393 ms       0.452 ms
 *       16M       1.211 ms       1.297 ms
 * Twice the passes cost more than ranking each 8-bit digit as two nibbles;
 * 16-bit keys, 16M: 0.620 against 0.659 ms. docs/benchmarks.md has the rest.
 */
export const DEFAULT_DIGIT_BITS: DigitBits = 8;

export interface RadixLayout {
  digitBits: DigitBits;
  radix: number;
  /** Pairs each invocation ranks; a multiple of 4 (keys are loaded as vec4). */
  itemsPerInvocation: number;
  /** Pairs per workgroup tile. */
  tile: number;
  /** Words of workgroup memory the scatter phase stages a tile in. */
  sharedWords: number;
  maxGroupsX: number;
}

/** Workgroup bytes the scatter phase needs besides its staging words. */
function scatterExtraBytes(radix: number): number {
  return 4 * (2 * WORKGROUP_SIZE + radix);
}

/**
 * Picks the largest tile the device's workgroup memory allows (bigger tiles
 * mean fewer per-tile counts to scan and longer runs in the scatter).
 */
export function chooseRadixLayout(
  limits: Pick<GPUSupportedLimits, 'maxComputeWorkgroupStorageSize' | 'maxComputeWorkgroupsPerDimension' | 'maxComputeInvocationsPerWorkgroup'>,
  options: { digitBits?: DigitBits; itemsPerInvocation?: number } = {},
): RadixLayout {
  const digitBits = options.digitBits ?? DEFAULT_DIGIT_BITS;
  const itemsPerInvocation = options.itemsPerInvocation;
  if (limits.maxComputeInvocationsPerWorkgroup < WORKGROUP_SIZE) {
    throw new Error(`the GPU sort needs ${WORKGROUP_SIZE} invocations per workgroup; this device allows ${limits.maxComputeInvocationsPerWorkgroup}`);
  }
  const radix = 1 << digitBits;
  const counterWords = 8 * WORKGROUP_SIZE;
  // Staging words, plus one padding word per 32 (see padded() in radix_scatter.wgsl).
  const stagingWords = (items: number) => {
    const words = Math.max(items * WORKGROUP_SIZE, counterWords);
    return words + Math.ceil(words / 32);
  };
  const fits = (items: number) => 4 * stagingWords(items) + scatterExtraBytes(radix) <= limits.maxComputeWorkgroupStorageSize;
  // Packed ranks hold a tile position in 12 bits (above an 8-bit digit), so
  // tiles stop at 4096 pairs = 16 per invocation. 12 comes first: on an H200,
  // 8-bit digits, 32-bit keys, 16M pairs took 1.21 ms with 12 pairs per
  // invocation, 1.32 ms with 16 (more registers, fewer workgroups resident)
  // and 1.49 ms with 8 (more tiles to count and scan; docs/benchmarks.md).
  const candidates = itemsPerInvocation !== undefined ? [itemsPerInvocation] : [12, 16, 8, 4];
  const items = candidates.find(fits);
  if (items === undefined || items % 4 !== 0 || items > 16 || !fits(items)) {
    throw new Error(`no radix tile fits in ${limits.maxComputeWorkgroupStorageSize} bytes of workgroup memory (asked for ${itemsPerInvocation ?? 'any'} pairs per invocation)`);
  }
  const tile = items * WORKGROUP_SIZE;
  return {
    digitBits,
    radix,
    itemsPerInvocation: items,
    tile,
    sharedWords: stagingWords(items),
    maxGroupsX: limits.maxComputeWorkgroupsPerDimension,
  };
}

/** WGSL constants every radix shader starts with. */
export function radixPrelude(layout: RadixLayout): string {
  return [
    `const WG: u32 = ${WORKGROUP_SIZE}u;`,
    `const ITEMS: u32 = ${layout.itemsPerInvocation}u;`,
    `const TILE: u32 = ${layout.tile}u;`,
    `const DIGIT_BITS: u32 = ${layout.digitBits}u;`,
    `const RADIX: u32 = ${layout.radix}u;`,
    `const SHARED_WORDS: u32 = ${layout.sharedWords}u;`,
    `const MAX_GROUPS_X: u32 = ${layout.maxGroupsX}u;`,
    '',
  ].join('\n');
}

/** Passes needed to sort keyBits bits with this digit width. */
export function passCount(keyBits: number, digitBits: DigitBits): number {
  return Math.ceil(keyBits / digitBits);
}
