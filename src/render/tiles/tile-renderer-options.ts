/** What a TileRenderer is made with (TileRenderer.create): defaults for the viewer, other values for the tests and benchmarks. */
import type { TileFootprint } from './tile-binning';
import type { Chunking } from './tile-chunks';
import type { TileSideSetting } from './tile-side';
import type { SplatOrder } from '../frame-renderer';

export interface TileRendererOptions {
  /** Pairs the buffers hold before any frame was read (default 2^20): tests give a few to make a frame outgrow them. */
  initialPairs?: number;
  /** Time binning, pair sort, ranges and raster each (benchmarks): each in a pass of its own. */
  profile?: boolean;
  /** The most pairs a frame may sort (default and at most: the device's, maxTilePairs), which bounds the candidate budget of tiles and quads alike (tile-pairs.ts): tests give a few. */
  maxPairs?: number;
  /** The most candidates a frame bins (default: the budget of tile-pairs.ts, by adapter), never past maxPairs: the world benchmark's full-detail pictures ask for all the device sorts (Infinity). */
  candidateBudget?: number;
  /** Default 'ellipse'; 'box' bins to every tile of a quad's bounding box (the benchmark's measure of what the test saves). */
  footprint?: TileFootprint;
  /** Splats each pixel holds back in the per-pixel order (default DEFAULT_PIXEL_QUEUE): tests and benchmarks compare others. */
  pixelQueue?: number;
  /** How long runs are cut into chunks (default chunkingFor's): tests cut short runs, benchmarks compare none (minPairs 0). */
  chunking?: Partial<Chunking>;
  /** Pairs a splat below which the raster walks block lists (default BLOCK_LISTS_BELOW): tests draw either way (Infinity, 0). */
  blockListsBelow?: number;
  /** Splats' alphas a pixel works out ahead, by order (default rasterArrivals, by device): tests draw a GPU's counts on a software adapter. */
  arrivals?: Partial<Record<SplatOrder, number>>;
  /** Pixels along a tile's side: 'auto' (tileSideFor's choice, frame by frame: the default on a GPU), or 8 or 16 for every frame (16: the default on a software adapter, tile-side-kits.ts). */
  tileSide?: TileSideSetting;
}
