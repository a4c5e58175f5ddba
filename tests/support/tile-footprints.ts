/**
 * The tile renderer's pairs checked on the CPU: the projector's records
 * decoded, and per splat the tiles (16×16 unless asked) holding a pixel it blends (its
 * alpha at the pixel centre reaches 1/255 inside its quad, evaluated as
 * shaders/tile_raster.wgsl evaluates it, in f64) and the tiles its quad's
 * bounding box covers. A correct binning gives each splat every tile of
 * the first set and none outside the second.
 */
import { PROJECTED_SPLAT } from '../../src/render/frame-layouts';
import { halfValue } from '../../src/gpu/half-float';

/** Pixels along a tile's side (the renderer's TILE_SIZE, restated: the test checks it). */
export const TILE = 16;
const ALPHA_MIN = 1 / 255;
const ALPHA_MAX = 0.99;

/** One projected splat as the raster reads it (shaders/tile_footprint.wgsl, footprint()). */
export interface DecodedSplat {
  centre: [number, number];
  edgeX: [number, number];
  edgeY: [number, number];
  sigmaLo: [number, number];
  sigmaHi: [number, number];
  /** 0: draws nothing (culled, or a quad without area). */
  opacity: number;
}

/** Splat `i` of the projector's records, read back as u32 words. */
export function decodeRecord(words: Uint32Array, i: number): DecodedSplat {
  const base = (PROJECTED_SPLAT.size / 4) * i;
  const f32 = new Float32Array(words.buffer, words.byteOffset + 4 * base, 2);
  const pair = (w: number): [number, number] => [halfValue(words[base + w]! & 0xffff), halfValue(words[base + w]! >>> 16)];
  const edgeX = pair(2);
  const edgeY = pair(3);
  const area = Math.hypot(...edgeX) > 0 && Math.hypot(...edgeY) > 0;
  return { centre: [f32[0]!, f32[1]!], edgeX, edgeY, sigmaLo: pair(4), sigmaHi: pair(5), opacity: area ? pair(7)[1] : 0 };
}

/** Tiles `side` pixels across a window `width` pixels wide. */
export function tileColumns(width: number, side = TILE): number {
  return Math.ceil(width / side);
}

/** The pixel columns and rows (inclusive) whose centres the splat's quad box can hold, clamped to the window; null: none. */
function pixelBox(s: DecodedSplat, width: number, height: number, slackPx = 0): { x0: number; x1: number; y0: number; y1: number } | null {
  const bx = Math.abs(s.edgeX[0]) + Math.abs(s.edgeY[0]) + slackPx;
  const by = Math.abs(s.edgeX[1]) + Math.abs(s.edgeY[1]) + slackPx;
  const x0 = Math.max(0, Math.ceil(s.centre[0] - bx + width / 2 - 0.5));
  const x1 = Math.min(width - 1, Math.floor(s.centre[0] + bx + width / 2 - 0.5));
  const y0 = Math.max(0, Math.ceil(height / 2 - 0.5 - (s.centre[1] + by)));
  const y1 = Math.min(height - 1, Math.floor(height / 2 - 0.5 - (s.centre[1] - by)));
  return x0 > x1 || y0 > y1 ? null : { x0, x1, y0, y1 };
}

/** The alpha splat `s` blends at pixel (x, y) of a width × height window (0: none: outside its quad, or under 1/255). */
export function alphaAt(s: DecodedSplat, x: number, y: number, width: number, height: number): number {
  const px = x + 0.5 - width / 2 - s.centre[0];
  const py = height / 2 - y - 0.5 - s.centre[1];
  const halfX = 0.5 * (s.sigmaHi[0] - s.sigmaLo[0]);
  const halfY = 0.5 * (s.sigmaHi[1] - s.sigmaLo[1]);
  const lx = s.edgeX[0] ** 2 + s.edgeX[1] ** 2;
  const ly = s.edgeY[0] ** 2 + s.edgeY[1] ** 2;
  const alongX = ((px * s.edgeX[0] + py * s.edgeX[1]) * halfX) / lx;
  const alongY = ((px * s.edgeY[0] + py * s.edgeY[1]) * halfY) / ly;
  if (Math.abs(alongX) > halfX || Math.abs(alongY) > halfY) return 0;
  const sx = 0.5 * (s.sigmaHi[0] + s.sigmaLo[0]) + alongX;
  const sy = 0.5 * (s.sigmaHi[1] + s.sigmaLo[1]) + alongY;
  const alpha = Math.min(ALPHA_MAX, s.opacity * Math.exp(-0.5 * (sx * sx + sy * sy)));
  return alpha < ALPHA_MIN ? 0 : alpha;
}

/**
 * The tiles (row-major ids) holding a pixel the splat blends with an alpha
 * of at least `margin` × 1/255: a margin above 1 leaves out pixels where
 * f32 and f64 could disagree.
 */
export function blendedTiles(s: DecodedSplat, width: number, height: number, margin = 1, side = TILE): Set<number> {
  const tiles = new Set<number>();
  const box = s.opacity > 0 ? pixelBox(s, width, height) : null;
  if (!box) return tiles;
  const columns = tileColumns(width, side);
  for (let y = box.y0; y <= box.y1; y++) {
    for (let x = box.x0; x <= box.x1; x++) {
      if (alphaAt(s, x, y, width, height) >= margin * ALPHA_MIN) tiles.add(Math.floor(y / side) * columns + Math.floor(x / side));
    }
  }
  return tiles;
}

/** The tiles (row-major ids) the splat's quad bounding box covers within the window, widened by `slackPx`. */
export function boxTiles(s: DecodedSplat, width: number, height: number, slackPx = 0.05, side = TILE): Set<number> {
  const tiles = new Set<number>();
  const box = pixelBox(s, width, height, slackPx);
  if (!box) return tiles;
  const columns = tileColumns(width, side);
  for (let ty = Math.floor(box.y0 / side); ty <= Math.floor(box.y1 / side); ty++) {
    for (let tx = Math.floor(box.x0 / side); tx <= Math.floor(box.x1 / side); tx++) tiles.add(ty * columns + tx);
  }
  return tiles;
}

/** The largest difference of any colour channel of two RGBA8 pictures, and the pixels differing by more than `levels`. */
export function channelDifference(a: Uint8Array, b: Uint8Array, levels = 1): { largest: number; pixels: number } {
  let largest = 0;
  let pixels = 0;
  for (let i = 0; i < a.length; i += 4) {
    const d = Math.max(Math.abs(a[i]! - b[i]!), Math.abs(a[i + 1]! - b[i + 1]!), Math.abs(a[i + 2]! - b[i + 2]!));
    largest = Math.max(largest, d);
    if (d > levels) pixels++;
  }
  return { largest, pixels };
}
