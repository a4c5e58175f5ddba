/**
 * Which end of an object is its base, along y (the axis the captured
 * scenes' convention and SPZ's two frames put up on), read from how wide
 * its splats spread at each end. DOM-free.
 *
 * An object stands on something with its widest footing (feet apart, a
 * stand's legs, a plinth, a patch of floor) and ends at the top in tips (a
 * head, a headstock, stems). So a thin slab across its lowest heights
 * spreads wide and one across its highest narrow. The cue reads slabs of
 * 1, 2 and 3 % of the height range at each end; every one must be wider at
 * the same end by MIN_FOOTING_RATIO, or it says nothing. It is asked only
 * where the ground guess (up-guess.ts) found no ground, and it decides
 * only the sign of y: a cup wider at its rim than at its foot would read
 * upside down, so the callers use it to settle a file whose frame is
 * two-way (an SPZ that records none) and to confirm a convention, never
 * to overrule one (app/camera/framing.ts). tests/unit/up-guess.test.ts
 * prints the figures quoted below.
 */
import { keptCentres } from './up-guess';

/** A slab at each end of the heights and how wide the splats in it spread. */
export interface EndSlabs {
  /** The slab's thickness, a share of the height range. */
  share: number;
  /** Root-mean-square distance across y of the slab's centres from their mean, over the height range: at the −y end and at the +y end. */
  spreadLow: number;
  spreadHigh: number;
  /** Centres in each slab. */
  countLow: number;
  countHigh: number;
}

export interface BaseGuess {
  /** The up axis: away from the wide end. */
  axis: '-y' | '+y';
  /** The smallest of the slabs' wide-over-narrow ratios. */
  ratio: number;
  reason: string;
}

/** Slab thicknesses, as shares of the height range: a footing must not hang on one. */
const SLAB_SHARES = [0.01, 0.02, 0.03];
/**
 * The wide end's slabs must spread this many times the narrow end's.
 * Measured (wide / narrow at 1, 2 and 3 %), with −y up: the biker (a man
 * standing) 3.1, 2.9, 2.7 towards his feet; a guitar on its stand 5.1,
 * 4.2, 4.0; a robot over a patch of ground 3.4, 3.4, 3.3; the bouquet in
 * justdealman 3.6, 3.6, 3.3 (its wrapped foot against a few stalks at the
 * top). The sparse 9k kacytran scene, no object, 0.97–1.1 (silent), as a
 * uniform ball or cube.
 */
const MIN_FOOTING_RATIO = 2;
/** Fewer centres than this in a slab, and its spread is noise. */
const MIN_SLAB_POINTS = 20;

/** The end slabs along y, or null when too few centres lie inside the 1–99 % box. */
export function measureEndSlabs(positions: Float32Array, count: number): EndSlabs[] | null {
  const points = keptCentres(positions, count);
  const n = points.length / 3;
  if (n === 0) return null;
  let low = Infinity, high = -Infinity;
  for (let i = 0; i < n; i++) {
    low = Math.min(low, points[3 * i + 1]!);
    high = Math.max(high, points[3 * i + 1]!);
  }
  const range = high - low;
  if (!(range > 0)) return null;
  return SLAB_SHARES.map((share) => {
    const lowSlab = spreadAcross(points, (y) => y <= low + share * range);
    const highSlab = spreadAcross(points, (y) => y >= high - share * range);
    return { share, spreadLow: lowSlab.spread / range, spreadHigh: highSlab.spread / range, countLow: lowSlab.count, countHigh: highSlab.count };
  });
}

/**
 * Which way is up by the object's footing, or null when its ends do not
 * say (too few centres at an end, or ends of like width at any slab).
 */
export function guessBaseUp(positions: Float32Array, count: number): BaseGuess | null {
  const slabs = measureEndSlabs(positions, count);
  if (!slabs || slabs.some((s) => s.countLow < MIN_SLAB_POINTS || s.countHigh < MIN_SLAB_POINTS)) return null;
  const ratios = slabs.map((s) => s.spreadHigh / s.spreadLow);
  // Wide at +y: the object stands on its +y end, and up is −y.
  if (ratios.every((r) => r >= MIN_FOOTING_RATIO)) return guess('-y', Math.min(...ratios));
  if (ratios.every((r) => r <= 1 / MIN_FOOTING_RATIO)) return guess('+y', Math.min(...ratios.map((r) => 1 / r)));
  return null;
}

function guess(axis: '-y' | '+y', ratio: number): BaseGuess {
  const base = axis === '-y' ? '+y' : '−y';
  return { axis, ratio, reason: `The splats spread ${ratio.toFixed(1)}× wider at their ${base} end than at the other, as an object stands on its footing.` };
}

/** How many centres have a y that `inSlab` takes, and their root-mean-square distance from their mean across y (in x and z). */
function spreadAcross(points: Float64Array, inSlab: (y: number) => boolean): { spread: number; count: number } {
  let count = 0, sx = 0, sz = 0, sxx = 0, szz = 0;
  for (let i = 0; i < points.length; i += 3) {
    if (!inSlab(points[i + 1]!)) continue;
    const x = points[i]!, z = points[i + 2]!;
    count++;
    sx += x;
    sz += z;
    sxx += x * x;
    szz += z * z;
  }
  if (count === 0) return { spread: 0, count };
  const variance = sxx / count - (sx / count) ** 2 + szz / count - (sz / count) ** 2;
  return { spread: Math.sqrt(Math.max(0, variance)), count };
}
