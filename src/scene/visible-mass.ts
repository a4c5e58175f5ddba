/**
 * Where a scene's visible mass is: the box the viewer frames a scene on and
 * whose centre it orbits. DOM-free.
 *
 * A box of splat centres (robustBounds) counts every splat alike, so faint
 * strays fool it: a garden table whose file held 8 % faint splats scattered
 * to 7× the table's radius was framed on the strays, the table a twelfth of
 * the window wide. Here each splat weighs what it adds to a picture, its
 * opacity times the area of its largest cross-section (π σ_max σ_mid),
 * capped at the MASS_CAP_QUANTILE of the weights so that a few huge splats
 * (sky, a bad export's 1e6 scales) do not rule. The bulk is where splats
 * are dense: opacity summed in a GRID³ grid over the centres' box, cells far
 * sparser than the typical one (a halo, however much weight it carries in
 * all) left out, and the box taken as weighted quantiles of what remains.
 * The grid is laid twice, the second time over the first pass's box, so an
 * object small in a wide halo still gets fine cells.
 *
 * Cost: up to MASS_SAMPLES splats evenly strided through the file (as
 * robustBounds samples), selections instead of sorts, a sort of the
 * occupied cells, and a few linear passes, whatever the scene's size:
 * 12–43 ms on the real scenes (best of 3, 2 cores shared with other work;
 * printed by tests/unit/visible-mass.test.ts), where a cold first call
 * costs several times that in compilation.
 */
import { robustBounds, selectNth, type Bounds, type SplatCloud } from './splat-cloud';

/** Splats looked at; quantiles of this many err by ±0.4 % of them, well under a pixel of the framing's fit. */
export const MASS_SAMPLES = 65536;
/** Weights are capped at this quantile of theirs: 1 splat in 20 at most weighs the most any can. */
const MASS_CAP_QUANTILE = 0.95;
/** Cells per axis of the density grid: 32³ cells, dozens of samples in a typical dense one. */
const GRID = 32;
/**
 * A cell is part of the bulk when it holds at least this share of the
 * typical cell's opacity (denseSamples). A halo of 8 % of the splats around
 * an object at 7× its radius is ~1/300 of the object's density per volume
 * (the volume ratio is 7³): one splat or none in a cell where the object
 * has dozens; the thin parts of real objects (the biker's head, a table's
 * legs) are within a factor ten of the typical cell.
 */
const DENSE_SHARE = 1 / 40;
/** The first grid's box: the centres' box with this share of them left out at each end of each axis (robustBounds' default). */
const TRIM_START = 0.01;
/** The second grid reaches this share of the first pass's box past each of its sides. */
const GRID_PADDING = 0.25;
/** Weight left out at each end of each axis in the final box. */
const TRIM = 0.01;

type MassSource = Pick<SplatCloud, 'count' | 'positions' | 'scales' | 'opacities'>;

/**
 * The box of the dense bulk of a scene's visible weight (file header).
 * Falls back on robustBounds when no splat shows (all transparent).
 */
export function visibleMassBounds(cloud: MassSource, samples = MASS_SAMPLES): Bounds {
  const { count } = cloud;
  if (count === 0) return { min: [0, 0, 0], max: [0, 0, 0] };
  const n = Math.min(count, samples);
  const step = count / n;
  const xyz = new Float32Array(3 * n);
  const weight = new Float32Array(n);
  const opacity = new Float32Array(n);
  for (let s = 0; s < n; s++) {
    const i = Math.floor(s * step);
    xyz[3 * s] = cloud.positions[3 * i]!;
    xyz[3 * s + 1] = cloud.positions[3 * i + 1]!;
    xyz[3 * s + 2] = cloud.positions[3 * i + 2]!;
    weight[s] = splatWeight(cloud.scales, cloud.opacities, i);
    opacity[s] = weight[s]! > 0 ? cloud.opacities[i]! : 0;
  }
  if (!capWeights(weight)) return robustBounds(cloud.positions, count);
  // The start: the centres' own box, 1 % trimmed, which any halo of more than 1 % widens.
  const keep = new Uint8Array(n);
  const start = robustBounds(xyz, n, TRIM_START);
  denseSamples(xyz, opacity, start, keep);
  // Again over what the first grid kept, with room around it for what its trim cut.
  const grid = padded(weightedBox(xyz, weight, keep, start), GRID_PADDING);
  denseSamples(xyz, opacity, grid, keep);
  return weightedBox(xyz, weight, keep, grid);
}

function padded({ min, max }: Bounds, share: number): Bounds {
  const pad = [0, 1, 2].map((a) => (max[a]! - min[a]!) * share);
  return {
    min: [min[0] - pad[0]!, min[1] - pad[1]!, min[2] - pad[2]!],
    max: [max[0] + pad[0]!, max[1] + pad[1]!, max[2] + pad[2]!],
  };
}

/** Opacity × π σ_max σ_mid; 0 for a splat that is not finite. */
function splatWeight(scales: Float32Array, opacities: Float32Array, i: number): number {
  const a = scales[3 * i]!, b = scales[3 * i + 1]!, c = scales[3 * i + 2]!;
  const max = Math.max(a, b, c);
  const mid = a + b + c - max - Math.min(a, b, c);
  const w = opacities[i]! * Math.PI * max * mid;
  return Number.isFinite(w) && w > 0 ? w : 0;
}

/** Caps the weights at their MASS_CAP_QUANTILE (of those above 0); false when none is above 0. */
function capWeights(weight: Float32Array): boolean {
  let count = 0;
  for (let s = 0; s < weight.length; s++) if (weight[s]! > 0) count++;
  if (count === 0) return false;
  const positive = new Float32Array(count);
  for (let s = 0, k = 0; s < weight.length; s++) if (weight[s]! > 0) positive[k++] = weight[s]!;
  const cap = selectNth(positive, Math.floor(MASS_CAP_QUANTILE * (positive.length - 1)));
  for (let s = 0; s < weight.length; s++) if (weight[s]! > cap) weight[s] = cap;
  return true;
}

/** The cell of a GRID³ grid over `box` a point falls in, or −1 outside the box. */
function cellOf(xyz: Float32Array, s: number, box: Bounds): number {
  let cell = 0;
  for (let a = 0; a < 3; a++) {
    const lo = box.min[a]!, span = box.max[a]! - lo;
    const t = span > 0 ? (xyz[3 * s + a]! - lo) / span : 0.5;
    if (!(t >= 0 && t <= 1)) return -1;
    cell = cell * GRID + Math.min(GRID - 1, Math.floor(t * GRID));
  }
  return cell;
}

/**
 * Marks in `keep` the samples inside `box` whose cell is dense: its summed
 * opacity at least DENSE_SHARE of the typical cell's (the cell where the
 * median of the opacity lies, heaviest cells first). Density counts
 * opacity, not mass: a halo of large opaque strays carries much mass, but
 * each of its cells holds a splat or two where the object's hold dozens.
 */
function denseSamples(xyz: Float32Array, opacity: Float32Array, box: Bounds, keep: Uint8Array): void {
  const cells = new Float64Array(GRID * GRID * GRID);
  const n = opacity.length;
  const cellIndex = new Int32Array(n);
  let total = 0;
  for (let s = 0; s < n; s++) {
    const cell = cellOf(xyz, s, box);
    cellIndex[s] = cell;
    if (cell < 0) continue;
    cells[cell]! += opacity[s]!;
    total += opacity[s]!;
  }
  const heavy = cells.filter((w) => w > 0).sort().reverse();
  let sum = 0;
  let typical = 0;
  for (const w of heavy) {
    sum += w;
    typical = w;
    if (sum >= total / 2) break;
  }
  const threshold = typical * DENSE_SHARE;
  for (let s = 0; s < n; s++) keep[s] = cellIndex[s]! >= 0 && cells[cellIndex[s]!]! >= threshold ? 1 : 0;
}

/** Bins per axis for the weighted quantiles: a 1/1024 of the box's width at most off. */
const QUANTILE_BINS = 1024;

/** Per axis, the TRIM and 1 − TRIM weighted quantiles of the kept samples, binned over `box`. */
function weightedBox(xyz: Float32Array, weight: Float32Array, keep: Uint8Array, box: Bounds): Bounds {
  const min: [number, number, number] = [...box.min];
  const max: [number, number, number] = [...box.max];
  const bins = new Float64Array(QUANTILE_BINS);
  for (let a = 0; a < 3; a++) {
    const lo = box.min[a]!, span = box.max[a]! - lo;
    if (!(span > 0)) continue;
    bins.fill(0);
    let total = 0;
    for (let s = 0; s < weight.length; s++) {
      if (!keep[s]) continue;
      const bin = Math.min(QUANTILE_BINS - 1, Math.max(0, Math.floor(((xyz[3 * s + a]! - lo) / span) * QUANTILE_BINS)));
      bins[bin]! += weight[s]!;
      total += weight[s]!;
    }
    if (!(total > 0)) continue;
    let below = 0;
    let first = -1, last = QUANTILE_BINS - 1;
    for (let b = 0; b < QUANTILE_BINS; b++) {
      below += bins[b]!;
      if (first < 0 && below > TRIM * total) first = b;
      if (below >= (1 - TRIM) * total) {
        last = b;
        break;
      }
    }
    min[a] = lo + (span * Math.max(0, first)) / QUANTILE_BINS;
    max[a] = lo + (span * (last + 1)) / QUANTILE_BINS;
  }
  return { min, max };
}
