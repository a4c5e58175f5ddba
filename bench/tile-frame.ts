/**
 * The tile renderer's figures for the frame benchmark (bench-frame.ts), at
 * one pose:
 *   - the frame as the viewer draws it with tiles (project, sort, and the
 *     'render' span over binning, pair sort, ranges, raster and resolve),
 *     and its pairs: the frame is drawn until the pair room stops growing,
 *     so no timed frame is one that outgrew its buffers and drew nothing;
 *   - each tile pass on its own (bin, pairSort, ranges, raster, resolve), from a
 *     second frame whose tile renderer times each pass (profile: every
 *     pass its own compute pass; its whole span is reported beside the
 *     unprofiled one, to show what the extra timestamps cost);
 *   - the pairs of the same frame binned to every tile of each quad's box
 *     (footprint 'box'): what the ellipse test saves.
 */
import { SplatFrame, type FrameTimings } from '../src/app/frame/splat-frame';
import type { DrawOrder } from '../src/app/frame/order/draw-order';
import type { Accumulation } from '../src/render/accumulation-target';
import type { SplatOrder } from '../src/render/frame-renderer';
import type { FrameParameters } from '../src/render/frame-uniforms';
import type { SplatDrawTarget } from '../src/render/splat-renderer';
import { TILE_PASSES, type TilePairCounts, type TilePass, type TileRendererOptions } from '../src/render/tiles/tile-renderer';
import type { RasterWalk } from '../src/render/tiles/tile-raster';
import { SMALL_TILE_SIDE, type TileSide } from '../src/render/tiles/tile-side';
import type { GpuSplats } from '../src/scene/gpu-splats';
import { sampleFrames, type WarmUp } from './frame-sampling';
import { readBufferU32 } from '../src/gpu/readback';

/** Draws of one pose before giving up on the pair room settling (it settles in two or three: one overflow, one growth past 3/4). */
const MAX_FIT_DRAWS = 8;

/** The two extra frames a tile row needs beside the benchmark's own: one profiled, one binning boxes. */
export class TileBenchFrames {
  /** With `perPixel`, both frames can draw the per-pixel order too, with `tiles`' queue. */
  static async create(device: GPUDevice, format: GPUTextureFormat, accumulation: Accumulation, tiles: TileRendererOptions = {}, perPixel = false): Promise<TileBenchFrames> {
    const [profiled, box] = await Promise.all([
      SplatFrame.create(device, format, { accumulation, tiles: { ...tiles, profile: true } }),
      SplatFrame.create(device, format, { accumulation, tiles: { ...tiles, footprint: 'box' } }),
    ]);
    await Promise.all([profiled, box].map((f) => (perPixel ? f.painters.tiles.prepare(true) : f.painters.tiles.prepare())));
    return new TileBenchFrames(profiled, box);
  }

  private constructor(
    readonly profiled: SplatFrame,
    readonly box: SplatFrame,
  ) {}

  setScene(scene: GpuSplats): void {
    this.profiled.setScene(scene);
    this.box.setScene(scene);
  }

  destroy(): void {
    this.profiled.destroy();
    this.box.destroy();
  }
}

export interface TileView {
  device: GPUDevice;
  parameters: FrameParameters;
  target: SplatDrawTarget;
  order: DrawOrder;
  /** How each pixel's splats are blended: every frame of the row is drawn, and checked to be drawn, in this order. */
  splatOrder: SplatOrder;
}

/** What a tile row adds to the benchmark's line (times in ms; medians). */
export type TileFigures = {
  drawn: 'tiles';
  projectMs: number;
  sortMs: number;
  renderMs: number;
  /** Medians of each frame's project + sort, and of its project + sort + render. */
  orderMs: number;
  frameMs: number;
  pairs: number;
  /** Pair slots sorted: every tile of the kept boxes (box slots, src/render/tiles/tile-binning.ts). */
  pairSlots: number;
  pairCapacity: number;
  /** The farthest splats left out, past the candidate budget (src/render/tiles/tile-pairs.ts; 0 in a real scene). */
  cutSplats: number;
  /** How the timed frames' raster walked its batches (src/render/tiles/tile-raster.ts, rasterWalkFor). */
  rasterWalk: RasterWalk;
  /** Pixels along the side of the timed frames' tiles (src/render/tiles/tile-side.ts, tileSideFor). */
  tileSide: TileSide;
  /** Pairs per tile of the fitted frame: the most any tile holds, and the 99th and 50th percentiles of the tiles holding any (the raster's workgroup per tile waits on the most). */
  tilePairsMax: number;
  tilePairsP99: number;
  tilePairsP50: number;
  /** Tiles holding any pair, of all. */
  tilesUsed: number;
  tiles: number;
  /** Tiles of the fitted frame whose runs were cut into chunks, and their chunks past the first (src/render/tiles/tile-chunks.ts). */
  splitTiles: number;
  chunkItems: number;
  boxPairs: number;
  binMs: number;
  /** The per-pixel order's ray shapes (0 in the centre-depth order). */
  shapesMs: number;
  pairSortMs: number;
  rangesMs: number;
  rasterMs: number;
  /** The pass that draws the tile picture into the output. */
  resolveMs: number;
  /** The profiled frame's whole 'render' span (renderMs is the unprofiled frame's). */
  profiledRenderMs: number;
  /** What of the profiled span no timed pass holds: clears, copies, and the gaps between passes. */
  untimedMs: number;
};

/** One tile frame drawn and submitted; its pairs read (null: the frame was drawn with quads, or its read was skipped). */
async function drawTiles(view: TileView, frame: SplatFrame, measure = false): Promise<TilePairCounts | null> {
  const encoder = view.device.createCommandEncoder({ label: 'benchTiles' });
  frame.encode(encoder, view.parameters, view.target, view.order, { renderer: 'tiles', measure, order: view.splatOrder });
  view.device.queue.submit([encoder.finish()]);
  return (await frame.painters.tiles.readStatistics()) ?? null;
}

/**
 * Draws the pose until the pair room stops growing: two frames in a row
 * that fit the same room at the same tile side (after an overflow the room
 * becomes 1.5× the need; a frame that fills more than 3/4 of it grows it
 * once more). Both sides' passes are made first, so that the frames timed
 * after are drawn at the side the pose keeps. Returns the last frame's pairs.
 */
export async function fitTilePairs(view: TileView, frame: SplatFrame): Promise<TilePairCounts> {
  const tiles = frame.painters.tiles.tileRenderer;
  if (!tiles) throw new Error('fitTilePairs: prepareTiles() first');
  await tiles.prepareTileSide(SMALL_TILE_SIDE, view.splatOrder === 'per-pixel');
  let capacity = -1;
  let side = 0;
  for (let draw = 0; draw < MAX_FIT_DRAWS; draw++) {
    const pairs = await drawTiles(view, frame);
    if (!pairs) continue;
    if (!pairs.overflowed && pairs.capacity === capacity && pairs.tileSide === side) return pairs;
    // The room a read asks for is made at the next encode: settled once two frames in a row fit the same room.
    capacity = pairs.overflowed ? -1 : pairs.capacity;
    side = pairs.tileSide;
  }
  throw new Error(`the tile pairs did not settle in ${MAX_FIT_DRAWS} frames (last: ${JSON.stringify(tiles.lastPairs)})`);
}

/** How the fitted frame's pairs spread over its tiles (its ranges read back). */
async function tilePairSpread(device: GPUDevice, frame: SplatFrame): Promise<{ tilePairsMax: number; tilePairsP99: number; tilePairsP50: number; tilesUsed: number; tiles: number }> {
  const ranges = frame.painters.tiles.tileRenderer!.lastRanges;
  if (!ranges) throw new Error('the fitted frame left no tile ranges');
  const words = await readBufferU32(device, ranges.buffer, 2 * ranges.tiles);
  const counts: number[] = [];
  for (let t = 0; t < ranges.tiles; t++) if (words[2 * t + 1]! > words[2 * t]!) counts.push(words[2 * t + 1]! - words[2 * t]!);
  counts.sort((a, b) => a - b);
  const at = (q: number) => counts[Math.min(counts.length - 1, Math.floor(q * counts.length))] ?? 0;
  return { tilePairsMax: counts.at(-1) ?? 0, tilePairsP99: at(0.99), tilePairsP50: at(0.5), tilesUsed: counts.length, tiles: ranges.tiles };
}

/** One timed tile frame; an overflow here (the room settled before) would be a bug in the pair budget. */
async function timedTiles(view: TileView, frame: SplatFrame): Promise<FrameTimings> {
  const pairs = await drawTiles(view, frame);
  const timings = await frame.readTimings();
  if (frame.drawnWith !== 'tiles') throw new Error('a timed tile frame was drawn with quads');
  if (frame.drawnOrder !== view.splatOrder) throw new Error(`a timed tile frame was drawn in the ${frame.drawnOrder} order, not ${view.splatOrder}`);
  if (pairs?.overflowed) throw new Error(`a timed tile frame outgrew its settled room: ${JSON.stringify(pairs)}`);
  return timings;
}

const must = (x: number | null, what: string): number => {
  if (x === null) throw new Error(`${what} was not timed`);
  return x;
};

/** The tile figures of one pose: `frame` is the benchmark's own frame (tiles prepared), `extra` its profiled and box twins. */
export async function measureTiles(view: TileView, frame: SplatFrame, extra: TileBenchFrames, runs: number, warm: WarmUp): Promise<TileFigures> {
  const fitted = await fitTilePairs(view, frame);
  const spread = await tilePairSpread(view.device, frame);
  const chunks = await frame.painters.tiles.tileRenderer!.readChunkCounts();

  const whole = await sampleFrames(
    async () => {
      const t = await timedTiles(view, frame);
      const [project, sort, render] = [must(t.project, 'project'), must(t.sort, 'sort'), must(t.render, 'render')];
      return { project, sort, render, order: project + sort, frame: project + sort + render };
    },
    (t) => t.frame,
    runs,
    warm,
  );

  const profiled = extra.profiled;
  await fitTilePairs(view, profiled);
  const passes = await sampleFrames(
    async () => {
      const t = await timedTiles(view, profiled);
      const profile = await profiled.painters.tiles.tileRenderer!.readProfile();
      if (!profile) throw new Error('the tile profile has no times (no timestamp-query?)');
      const figures = { render: must(t.render, 'render') } as Record<TilePass | 'render', number>;
      // A pass the frame did not run (the centre-depth order's ray shapes) counts 0.
      for (const pass of TILE_PASSES) figures[pass] = profile[pass] ?? 0;
      return figures;
    },
    (t) => t.render,
    runs,
    warm,
  );

  const box = await fitTilePairs(view, extra.box);
  return {
    drawn: 'tiles',
    projectMs: whole.project,
    sortMs: whole.sort,
    renderMs: whole.render,
    orderMs: whole.order,
    frameMs: whole.frame,
    pairs: fitted.touched,
    pairSlots: fitted.total,
    pairCapacity: fitted.capacity,
    cutSplats: fitted.cutEntries,
    rasterWalk: frame.painters.tiles.tileRenderer!.lastWalk,
    tileSide: frame.painters.tiles.tileRenderer!.lastTileSide,
    ...spread,
    splitTiles: chunks.splits,
    chunkItems: chunks.items,
    boxPairs: box.total,
    binMs: passes.bin,
    shapesMs: passes.shapes,
    pairSortMs: passes.pairSort,
    rangesMs: passes.ranges,
    rasterMs: passes.raster,
    resolveMs: passes.resolve,
    profiledRenderMs: passes.render,
    untimedMs: passes.render - TILE_PASSES.reduce((sum, pass) => sum + passes[pass], 0),
  };
}
