/**
 * The shape of the GPU radix sort: how tiles are ranked, workgroup size,
 * pairs per invocation, digit width. This file is the single source of truth
 * for those numbers; the WGSL phases read them from the prelude built here.
 */

/** Invocations per workgroup of the portable sort (the portable maximum every WebGPU device allows). */
export const WORKGROUP_SIZE = 256;

/** Digit widths the sort implements. */
export type DigitBits = 4 | 8;

/**
 * How the scatter phase ranks a tile by digit:
 * - 'portable': per-invocation nibble counters and workgroup scans, no
 *   subgroup operations (shaders/radix_scatter.wgsl);
 * - 'subgroup': each subgroup matches equal digits with ballots and counts
 *   them into a histogram of its own (shaders/radix_scatter_subgroup.wgsl).
 */
export type Ranking = 'portable' | 'subgroup';

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

/**
 * The subgroup ranking keeps one digit histogram per subgroup, so a
 * workgroup holds at most this many subgroups (16 × 256 counters = 16 KiB):
 * devices with small subgroups (SwiftShader's 4 lanes) get smaller workgroups.
 */
const MAX_SUBGROUPS_PER_WORKGROUP = 16;

/** Most pairs per invocation offered (20 to 32 measured slower than 12 and 16 on an H100; docs/benchmarks.md). */
const MAX_ITEMS_PER_INVOCATION = 32;

/**
 * Most pairs per invocation of the portable ranking: an invocation counts
 * its own pairs' nibbles in 4-bit counters, all but the last pair, so 16
 * at most (radix_scatter.wgsl).
 */
const MAX_PORTABLE_ITEMS_PER_INVOCATION = 16;

/**
 * Most pairs in a tile of the portable ranking: an invocation holds each
 * pair's position in the tile and its rank (tileBits(tile) bits each)
 * beside a 4-bit nibble of its digit in one register (radix_scatter.wgsl).
 * Tiles past 4,096 pairs need workgroups past 256 invocations and ran
 * slower on an H100 (16M 32-bit pairs: 8,192-pair tiles of 512 × 16,
 * 0.934 ms; of 1,024 × 8, 1.28 ms; the default 256 × 16, 0.898 ms;
 * docs/benchmarks.md), but the ranking does not rule them out.
 */
export const MAX_PORTABLE_TILE = 16384;

/** Bits that hold a place in a tile of this many pairs (TILE_BITS in the prelude). */
export function tileBits(tile: number): number {
  return Math.max(1, Math.ceil(Math.log2(tile)));
}

/**
 * Most pairs in any tile: the count phase hands on a tile's count of a
 * digit and where the digit starts in the tile in 16 bits each
 * (radix_common.wgsl). 32 pairs per invocation in 1,024 invocations fit.
 */
const MAX_TILE = 32768;

/** The subgroup sizes a device may use (GPUAdapterInfo.subgroupMinSize / subgroupMaxSize). */
export interface SubgroupSizes {
  min: number;
  max: number;
}

export interface RadixLayout {
  ranking: Ranking;
  digitBits: DigitBits;
  radix: number;
  /** Invocations per workgroup, in every phase. */
  workgroupSize: number;
  /** Pairs each invocation ranks; a multiple of 4 (the count phase loads keys as vec4). */
  itemsPerInvocation: number;
  /** Pairs per workgroup tile. */
  tile: number;
  /** Words of workgroup memory the portable scatter phase stages a tile in. */
  sharedWords: number;
  /** Subgroup ranking: the most subgroups a workgroup can hold (workgroupSize / smallest subgroup). */
  maxSubgroups: number;
  /** Subgroup ranking: the widest subgroup, which sets the width of a ballot mask. */
  subgroupMaxSize: number;
  maxGroupsX: number;
  /** Most blocks of tiles the scan phase splits the tiles into (SCAN_BLOCKS unless a test asks for fewer). */
  scanBlocks: number;
}

export interface RadixLayoutOptions {
  digitBits?: DigitBits;
  itemsPerInvocation?: number;
  ranking?: Ranking;
  /** Required for the subgroup ranking. */
  subgroupSizes?: SubgroupSizes;
  /**
   * Invocations per workgroup, a power of two (default: WORKGROUP_SIZE, or
   * for the subgroup ranking as many whole subgroups as its histograms
   * allow, up to WORKGROUP_SIZE). Larger workgroups need a device that
   * allows them.
   */
  workgroupSize?: number;
  /**
   * Caps the scan phase's blocks below SCAN_BLOCKS, so tests reach blocks
   * of several tiles at small sizes.
   */
  scanBlocks?: number;
}

type LayoutLimits = Pick<
  GPUSupportedLimits,
  'maxComputeWorkgroupStorageSize' | 'maxComputeWorkgroupsPerDimension' | 'maxComputeInvocationsPerWorkgroup'
>;

/**
 * Picks the largest tile the device's workgroup memory allows (bigger tiles
 * mean fewer per-tile counts to scan and longer runs in the scatter).
 */
export function chooseRadixLayout(limits: LayoutLimits, options: RadixLayoutOptions = {}): RadixLayout {
  const digitBits = options.digitBits ?? DEFAULT_DIGIT_BITS;
  const ranking = options.ranking ?? 'portable';
  const radix = 1 << digitBits;
  const sizes = options.subgroupSizes;
  if (ranking === 'subgroup' && !validSubgroupSizes(sizes)) {
    throw new Error(`the subgroup ranking needs the device's subgroup sizes (powers of two from 4 to 128), got ${JSON.stringify(sizes)}`);
  }
  // Subgroup ranking: whole subgroups of the widest size (each walks whole runs of the tile).
  const workgroupSize =
    options.workgroupSize ??
    (ranking === 'subgroup' ? Math.max(Math.min(WORKGROUP_SIZE, MAX_SUBGROUPS_PER_WORKGROUP * sizes!.min), sizes!.max) : WORKGROUP_SIZE);
  const pow2 = Number.isInteger(workgroupSize) && workgroupSize >= 32 && (workgroupSize & (workgroupSize - 1)) === 0;
  const tooManySubgroups = ranking === 'subgroup' && options.workgroupSize !== undefined && workgroupSize / sizes!.min > MAX_SUBGROUPS_PER_WORKGROUP;
  if (!pow2 || (ranking === 'subgroup' && (workgroupSize % sizes!.max !== 0 || tooManySubgroups))) {
    throw new Error(
      `a workgroup of ${workgroupSize} invocations does not suit the ${ranking} ranking` +
        (ranking === 'subgroup' ? ` (whole subgroups of ${sizes!.max}, at most ${MAX_SUBGROUPS_PER_WORKGROUP} of ${sizes!.min})` : ' (a power of two from 32)'),
    );
  }
  const maxSubgroups = ranking === 'subgroup' ? workgroupSize / sizes!.min : 0;
  if (limits.maxComputeInvocationsPerWorkgroup < workgroupSize) {
    throw new Error(`the GPU sort needs ${workgroupSize} invocations per workgroup; this device allows ${limits.maxComputeInvocationsPerWorkgroup}`);
  }
  const stagingWords = (items: number) => portableStagingWords(items, workgroupSize);
  const bytes = (items: number) =>
    4 *
    (ranking === 'subgroup'
      ? subgroupScatterWords(items * workgroupSize, radix, workgroupSize, maxSubgroups)
      : portableScatterWords(stagingWords(items), radix, workgroupSize));
  const maxTile = ranking === 'portable' ? MAX_PORTABLE_TILE : MAX_TILE;
  const fits = (items: number) => bytes(items) <= limits.maxComputeWorkgroupStorageSize && items * workgroupSize <= maxTile;
  // Portable: 16 comes first. On an H100, 8-bit digits, in one run (ms,
  // 1M / 4M / 16M 32-bit pairs): 16 pairs per invocation 0.100 / 0.284 /
  // 0.892, 12 pairs 0.112 / 0.293 / 0.962. (Before the scan of groups of
  // 16 in radix_common.wgsl, 12 was faster at 4M.) Subgroup: the biggest
  // tile that fits, its ranking has no per-pair barriers and amortises its
  // per-tile work (1.11 ms with 32 pairs per invocation, 1.17 with 24, 1.27
  // with 16; docs/benchmarks.md).
  const requested = options.itemsPerInvocation;
  const candidates =
    requested !== undefined ? [requested] : ranking === 'subgroup' ? [32, 24, 16, 12, 8, 4] : [16, 12, 8, 4];
  const items = candidates.find(fits);
  const maxItems = ranking === 'subgroup' ? MAX_ITEMS_PER_INVOCATION : MAX_PORTABLE_ITEMS_PER_INVOCATION;
  if (requested !== undefined && (!Number.isInteger(requested) || requested < 4 || requested % 4 !== 0 || requested > maxItems)) {
    throw new Error(`the ${ranking} ranking takes 4 to ${maxItems} pairs per invocation in steps of 4 (asked for ${requested})`);
  }
  if (requested !== undefined && requested * workgroupSize > maxTile) {
    throw new Error(`the ${ranking} ranking's tiles hold at most ${maxTile} pairs (asked for ${requested} pairs per invocation in workgroups of ${workgroupSize})`);
  }
  if (items === undefined || !fits(items)) {
    throw new Error(`no radix tile fits in ${limits.maxComputeWorkgroupStorageSize} bytes of workgroup memory (asked for ${requested ?? 'any'} pairs per invocation)`);
  }
  return {
    ranking,
    digitBits,
    radix,
    workgroupSize,
    itemsPerInvocation: items,
    tile: items * workgroupSize,
    sharedWords: stagingWords(items),
    maxSubgroups,
    subgroupMaxSize: ranking === 'subgroup' ? sizes!.max : 0,
    maxGroupsX: limits.maxComputeWorkgroupsPerDimension,
    scanBlocks: Math.max(1, Math.min(SCAN_BLOCKS, Math.floor(options.scanBlocks ?? SCAN_BLOCKS))),
  };
}

function validSubgroupSizes(sizes: SubgroupSizes | undefined): boolean {
  const pow2 = (x: number) => Number.isInteger(x) && x >= 4 && x <= 128 && (x & (x - 1)) === 0;
  return !!sizes && pow2(sizes.min) && pow2(sizes.max) && sizes.min <= sizes.max;
}

/** Portable scatter: staging words (the tile, or 8 nibble-counter words per invocation), plus one padding word per 32 (see padded() in radix_scatter.wgsl). */
function portableStagingWords(items: number, workgroupSize: number): number {
  const words = Math.max(items * workgroupSize, 8 * workgroupSize);
  return words + Math.ceil(words / 32);
}

/** Words of workgroup_exclusive_scan's buffers (radix_common.wgsl): a value per invocation, a total per 16, in fours. */
function scanWords(workgroupSize: number): number {
  return workgroupSize + 4 * Math.ceil(workgroupSize / 16 / 4);
}

/** Portable scatter: staging, the digit bases, the scan (and 4 for alignment). */
function portableScatterWords(stagingWords: number, radix: number, workgroupSize: number): number {
  return stagingWords + radix + scanWords(workgroupSize) + 4;
}

/** Subgroup scatter: per-subgroup histograms, the staged tile, two digit tables, the scan, the subgroup counter (and alignment). */
function subgroupScatterWords(tile: number, radix: number, workgroupSize: number, maxSubgroups: number): number {
  return maxSubgroups * radix + tile + 2 * radix + scanWords(workgroupSize) + 4;
}

/**
 * The scan phase (radix_scan.wgsl) splits the tiles into at most this many
 * blocks of consecutive tiles, one workgroup each, and blocks hold at least
 * MIN_BLOCK_TILES tiles. The count phase adds each tile's counts into its
 * block's sums; a scan workgroup reads every block's sums (the digit
 * totals, and what the blocks before its own hold), then walks its own
 * tiles. More blocks walk fewer tiles each but read more sums. On an H200
 * (32-bit pairs, whole sort; docs/benchmarks.md), at most 32 / 64 / 128
 * blocks: 4M 0.2371 / 0.2375 / 0.2422 ms, 16M 0.7272 / 0.7160 / 0.7175;
 * blocks of at least 4 tiles instead of 8: 1M 0.0944 against 0.0927.
 */
export const SCAN_BLOCKS = 64;
export const MIN_BLOCK_TILES = 8;

/** Tiles per scan block (scan_block_tiles() in the prelude says the same). */
export function scanBlockTiles(numTiles: number, scanBlocks = SCAN_BLOCKS): number {
  return Math.max(MIN_BLOCK_TILES, Math.ceil(numTiles / scanBlocks));
}

/**
 * Most lanes of the scan phase (radix_scan.wgsl): each lane reads every
 * SCAN_MAX_LANES-th block's sums and a share of the block's tiles, four
 * digits per invocation. 4 lanes of 64 invocations make the default
 * workgroup for 8-bit digits.
 */
export const SCAN_MAX_LANES = 4;

/** The scan phase's split of the digits into quads over invocations and lanes. */
function scanLaneConstants(layout: RadixLayout): string[] {
  const quads = layout.radix / 4;
  const perRow = Math.min(layout.workgroupSize, quads);
  return [
    `const QUADS: u32 = ${quads}u;`,
    `const QUADS_PER_LANE_ROW: u32 = ${perRow}u;`,
    `const QUADS_PER_INVOCATION: u32 = ${quads / perRow}u;`,
    `const SCAN_LANES: u32 = ${Math.min(SCAN_MAX_LANES, layout.workgroupSize / perRow)}u;`,
  ];
}

/** WGSL that every radix shader starts with: the subgroup extension where used, and the constants. */
export function radixPrelude(layout: RadixLayout): string {
  const lines = [
    ...(layout.ranking === 'subgroup' ? ['enable subgroups;', ''] : []),
    `const WG: u32 = ${layout.workgroupSize}u;`,
    `const ITEMS: u32 = ${layout.itemsPerInvocation}u;`,
    `const TILE: u32 = ${layout.tile}u;`,
    `const TILE_BITS: u32 = ${tileBits(layout.tile)}u;`,
    `const DIGIT_BITS: u32 = ${layout.digitBits}u;`,
    `const RADIX: u32 = ${layout.radix}u;`,
    `const SHARED_WORDS: u32 = ${layout.sharedWords}u;`,
    `const MAX_GROUPS_X: u32 = ${layout.maxGroupsX}u;`,
    `const SCAN_BLOCKS: u32 = ${layout.scanBlocks}u;`,
    ...scanLaneConstants(layout),
    `fn scan_block_tiles(num_tiles: u32) -> u32 { return max(${MIN_BLOCK_TILES}u, (num_tiles + SCAN_BLOCKS - 1u) / SCAN_BLOCKS); }`,
  ];
  if (layout.ranking === 'subgroup') {
    lines.push(`const MAX_SUBGROUPS: u32 = ${layout.maxSubgroups}u;`, '', ballotMaskHelpers(layout.subgroupMaxSize));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A ballot as a lane mask, and the few operations the ranking needs on it:
 * one u32 where no subgroup is wider than 32 lanes (every NVIDIA GPU, most
 * others), four where one may be (AMD's wave64, up to 128 lanes).
 */
function ballotMaskHelpers(subgroupMaxSize: number): string {
  if (subgroupMaxSize <= 32) {
    return `alias LaneMask = u32;
fn ballot(p: bool) -> LaneMask { return subgroupBallot(p).x; }
fn lane_count(m: LaneMask) -> u32 { return countOneBits(m); }
fn lanes_below(lane: u32) -> LaneMask { return (1u << lane) - 1u; }
fn lowest_lane(m: LaneMask) -> u32 { return firstTrailingBit(m); }
`;
  }
  return `alias LaneMask = vec4<u32>;
fn ballot(p: bool) -> LaneMask { return subgroupBallot(p); }
fn lane_count(m: LaneMask) -> u32 { let c = countOneBits(m); return c.x + c.y + c.z + c.w; }
fn lanes_below(lane: u32) -> LaneMask {
  let word = vec4<u32>(0u, 1u, 2u, 3u);
  let partial = (1u << (lane & 31u)) - 1u;
  return select(vec4<u32>(0u), vec4<u32>(0xffffffffu), word < vec4<u32>(lane >> 5u))
       | select(vec4<u32>(0u), vec4<u32>(partial), word == vec4<u32>(lane >> 5u));
}
fn lowest_lane(m: LaneMask) -> u32 {
  if (m.x != 0u) { return firstTrailingBit(m.x); }
  if (m.y != 0u) { return 32u + firstTrailingBit(m.y); }
  if (m.z != 0u) { return 64u + firstTrailingBit(m.z); }
  return 96u + firstTrailingBit(m.w);
}
`;
}

/** Passes needed to sort keyBits bits with this digit width. */
export function passCount(keyBits: number, digitBits: DigitBits): number {
  return Math.ceil(keyBits / digitBits);
}
