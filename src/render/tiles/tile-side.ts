/**
 * How large a frame's tiles are: the tile renderer's one place for that
 * policy. A tile's workgroup tries every pair of its run at every pixel of
 * the tile, so a splat a few pixels across costs the whole tile's pixels
 * however little of it the splat covers. Where a frame's splats are mostly
 * smaller than a 16-pixel tile, 8-pixel tiles bin more pairs but try each
 * at a quarter of the pixels. Measured on an H200 at 1920×1080
 * (docs/benchmarks.md, "Smaller tiles where splats are small"), frames of
 * 8-pixel tiles against 16:
 * - the 7.2M-splat replicated scene from outside and on the way in (1.4–1.8
 *   pairs a kept splat at 16): 0.83–0.87× the frame, the raster
 *   0.56–0.60×, binning and pair sort 1.2–1.5×;
 * - its views from inside (2.4 pairs a splat) and the real scenes' views
 *   (4–390): 1.04–1.54×, the binning's extra pairs outweighing the raster.
 * So a frame draws 8-pixel tiles when the frame read before it binned under
 * SMALL_TILES_BELOW pairs a kept splat at 16, and keeps them until one
 * bins over SMALL_TILES_UNTIL at 8 (the same splats bin 1.3–1.6 times the
 * pairs at 8: the gap between the two keeps a view near the line from
 * switching every frame).
 */
/** Pixels along a tile's side. */
export type TileSide = 8 | 16;

/** The side frames draw with unless their splats are small (TILE_SIZE's default in shaders/tile_state.wgsl). */
export const TILE_SIZE: TileSide = 16;
/** The side of frames whose splats are small. */
export const SMALL_TILE_SIDE: TileSide = 8;

/** Pairs a kept splat at 16-pixel tiles under which the next frames draw 8-pixel tiles. */
export const SMALL_TILES_BELOW = 2;
/** Pairs a kept splat at 8-pixel tiles over which the next frames draw 16-pixel tiles again. */
export const SMALL_TILES_UNTIL = 3.5;
/**
 * The pair slots a frame at 8-pixel tiles is given room for, as a multiple
 * of the 16-pixel frame's before it (its touched pairs were 1.30–1.56 times
 * below the switch; both sides now sort every tile of the kept boxes,
 * tile-binning.ts), so that the first frame of small tiles fits its
 * buffers. One that does not is drawn again with the room it needed.
 */
export const SMALL_TILE_PAIRS = 1.6;

/** 'auto' (tileSideFor's choice) or one side for every frame (tests, benchmarks). */
export type TileSideSetting = 'auto' | TileSide;

/** What a read frame tells the choice (TilePairCounts, tile-pairs.ts): its pairs, its entries and those cut, and the side it was binned at. */
export interface TileSideCounts {
  /** Pairs the footprints touched, and the slots sorted (tile-pairs.ts). */
  touched: number;
  total: number;
  entries: number;
  cutEntries: number;
  tileSide: TileSide;
}

/**
 * The side of the next frame, from the frame read last (null: none yet) and
 * the most pairs the device may sort (small tiles only where the pairs they
 * are expected to need fit it).
 */
export function tileSideFor(last: TileSideCounts | null, setting: TileSideSetting, pairLimit: number): TileSide {
  if (setting !== 'auto') return setting;
  const kept = last ? last.entries - last.cutEntries : 0;
  if (!last || kept <= 0) return TILE_SIZE;
  const perSplat = last.touched / kept;
  if (last.tileSide === SMALL_TILE_SIDE) return perSplat > SMALL_TILES_UNTIL ? TILE_SIZE : SMALL_TILE_SIDE;
  return perSplat < SMALL_TILES_BELOW && last.total * SMALL_TILE_PAIRS <= pairLimit ? SMALL_TILE_SIDE : TILE_SIZE;
}

/** Tiles of a width × height picture at `side`. */
export function tileCount(width: number, height: number, side: TileSide): number {
  return Math.ceil(width / side) * Math.ceil(height / side);
}
