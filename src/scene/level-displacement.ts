/**
 * How far a coarser level of detail moves what a leaf of a world shows, in
 * scene units: a Streamed SOG world's per-level error that the viewer can
 * turn into pixels at a leaf's distance (error × pixels per unit ÷
 * distance, src/app/world/world-choice.ts), so that its threshold of 0.5 px
 * means half a pixel of displacement on screen. DOM-free, GPU-free.
 *
 * A level's displacement is the DISPLACEMENT_QUANTILE of the distance from
 * each splat of the finest level to the nearest splat centre of that
 * level, each finest splat weighted by what it adds to a picture (its
 * opacity times the area of its largest cross-section, π σ_max σ_mid, as
 * visible-mass.ts weighs splats). Decimation replaces several splats by
 * one at their mean, or keeps one of them: either way the detail a fine
 * splat carried is drawn, at best, where the nearest coarse splat is.
 *
 * Why not splat-transform's own table (`--lod-errors`): it is the squared
 * image difference of a level against the finest, rendered from six
 * directions with the leaf scaled to a unit radius and divided by the
 * finest image's energy: a relative error with no length in it, so it
 * ranks levels but cannot say how many pixels a level is off at a given
 * distance. It is kept apart in the index (`errors`); this measure is
 * written beside it as `displacements` (bench/world-displacements.ts).
 */
import type { SplatCloud } from './splat-cloud';

/** The share of a leaf's visible weight whose displacement the level's figure bounds: the few splats of a merge's far edge do not rule it. */
export const DISPLACEMENT_QUANTILE = 0.9;
/** Finest splats looked at per leaf (evenly strided): a quantile of this many errs by about ±0.2 % of them. */
export const DISPLACEMENT_SAMPLES = 65536;

/** A run of a cloud's splats: rows [offset, offset + count). */
export interface SplatRun {
  cloud: Pick<SplatCloud, 'positions' | 'scales' | 'opacities'>;
  offset: number;
  count: number;
}

/**
 * The displacement of `coarse` against `fine` (the file's header), in
 * scene units: 0 when they are the same run, Infinity when `coarse` is
 * empty and `fine` is not.
 */
export function levelDisplacement(fine: SplatRun, coarse: SplatRun, samples = DISPLACEMENT_SAMPLES): number {
  if (fine.count === 0) return 0;
  if (coarse.count === 0) return Infinity;
  if (fine.cloud === coarse.cloud && fine.offset === coarse.offset && fine.count === coarse.count) return 0;
  const grid = CentreGrid.of(coarse);
  const n = Math.min(fine.count, samples);
  const step = fine.count / n;
  const distances = new Float64Array(n);
  const weights = new Float64Array(n);
  const { positions, scales, opacities } = fine.cloud;
  for (let k = 0; k < n; k++) {
    const i = fine.offset + Math.floor(k * step);
    distances[k] = grid.nearest(positions[3 * i]!, positions[3 * i + 1]!, positions[3 * i + 2]!);
    weights[k] = opacities[i]! * crossSection(scales, i);
  }
  return weightedQuantile(distances, weights, DISPLACEMENT_QUANTILE);
}

/** π σ_max σ_mid of splat i: the area of its largest cross-section. */
function crossSection(scales: Float32Array, i: number): number {
  const [a, b, c] = [scales[3 * i]!, scales[3 * i + 1]!, scales[3 * i + 2]!];
  const most = Math.max(a, b, c);
  const least = Math.min(a, b, c);
  return Math.PI * most * (a + b + c - most - least);
}

/** The value below which `share` of the total weight lies (all weights 0: the plain quantile). */
export function weightedQuantile(values: Float64Array, weights: Float64Array, share: number): number {
  const order = Array.from(values.keys()).sort((x, y) => values[x]! - values[y]!);
  let total = 0;
  for (const w of weights) total += w;
  if (!(total > 0)) return values[order[Math.min(order.length - 1, Math.floor(share * order.length))]!]!;
  let below = 0;
  for (const i of order) {
    below += weights[i]!;
    if (below >= share * total) return values[i]!;
  }
  return values[order[order.length - 1]!]!;
}

/**
 * The centres of a run in a uniform grid, for nearest-centre queries: cells
 * about two centres' spacing across (the spacing taken over the box's
 * largest face, as the splats of a capture lie on surfaces), sorted by
 * cell so a cell's centres are one slice.
 */
class CentreGrid {
  private constructor(
    private readonly xyz: Float32Array,
    private readonly min: readonly [number, number, number],
    private readonly cell: number,
    private readonly cells: readonly [number, number, number],
    /** Per cell, where its centres start in xyz (cells + 1 entries). */
    private readonly starts: Uint32Array,
  ) {}

  static of(run: SplatRun): CentreGrid {
    const { positions } = run.cloud;
    const min: [number, number, number] = [Infinity, Infinity, Infinity];
    const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
    for (let i = run.offset; i < run.offset + run.count; i++) {
      for (let a = 0; a < 3; a++) {
        const v = positions[3 * i + a]!;
        if (v < min[a]!) min[a] = v;
        if (v > max[a]!) max[a] = v;
      }
    }
    const extent = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
    const [x, y, z] = extent as [number, number, number];
    const face = Math.max(x * y, y * z, x * z);
    // Two centres' spacing; a line or a point of centres gets a cell from its length, or one cell.
    let cell = Math.max(2 * Math.sqrt(face / run.count), Math.max(x, y, z) / run.count, 1e-9);
    const cellsAt = (side: number) => extent.map((e) => Math.floor(e / side) + 1) as [number, number, number];
    let cells = cellsAt(cell);
    // Centres filling a volume, not a surface, would get far more cells than centres: at most 4 cells a centre.
    for (let total = cells[0] * cells[1] * cells[2]; total > 4 * run.count; total = cells[0] * cells[1] * cells[2]) {
      cell *= Math.cbrt(total / (4 * run.count)) * 1.01;
      cells = cellsAt(cell);
    }
    const cellOf = (i: number) => {
      const c = [0, 1, 2].map((a) => Math.min(cells[a]! - 1, Math.floor((positions[3 * i + a]! - min[a]!) / cell)));
      return (c[2]! * cells[1] + c[1]!) * cells[0] + c[0]!;
    };
    const total = cells[0] * cells[1] * cells[2];
    const starts = new Uint32Array(total + 1);
    for (let i = run.offset; i < run.offset + run.count; i++) starts[cellOf(i) + 1]!++;
    for (let c = 0; c < total; c++) starts[c + 1]! += starts[c]!;
    const fill = starts.slice(0, total);
    const xyz = new Float32Array(3 * run.count);
    for (let i = run.offset; i < run.offset + run.count; i++) {
      const at = 3 * fill[cellOf(i)]!++;
      xyz[at] = positions[3 * i]!;
      xyz[at + 1] = positions[3 * i + 1]!;
      xyz[at + 2] = positions[3 * i + 2]!;
    }
    return new CentreGrid(xyz, min, cell, cells, starts);
  }

  /** The distance from (x, y, z) to the nearest centre: shells of cells outward until no nearer centre can lie beyond the shell. */
  nearest(x: number, y: number, z: number): number {
    const { cells, cell, min } = this;
    const home = [x, y, z].map((v, a) => Math.min(cells[a]! - 1, Math.max(0, Math.floor((v - min[a]!) / cell))));
    let best = Infinity;
    const reach = Math.max(cells[0], cells[1], cells[2]);
    for (let r = 0; r <= reach; r++) {
      // Every centre beyond shell r is at least (r − 1) cells plus the point's offset away: stop once that passes the best.
      if ((r - 1) * cell > best) break;
      this.visitShell(home as [number, number, number], r, (from, to) => {
        const xyz = this.xyz;
        for (let k = from; k < to; k++) {
          const dx = xyz[3 * k]! - x;
          const dy = xyz[3 * k + 1]! - y;
          const dz = xyz[3 * k + 2]! - z;
          const d = dx * dx + dy * dy + dz * dz;
          if (d < best * best) best = Math.sqrt(d);
        }
      });
    }
    return best;
  }

  /** Calls `visit` with the slice of centres of each cell at Chebyshev distance r from `home`. */
  private visitShell(home: [number, number, number], r: number, visit: (from: number, to: number) => void): void {
    const { cells, starts } = this;
    const lo = home.map((h) => Math.max(0, h - r));
    const hi = home.map((h, a) => Math.min(cells[a]! - 1, h + r));
    const cellAt = (i: number, j: number, k: number) => {
      const c = (k * cells[1] + j) * cells[0] + i;
      visit(starts[c]!, starts[c + 1]!);
    };
    for (let k = lo[2]!; k <= hi[2]!; k++) {
      for (let j = lo[1]!; j <= hi[1]!; j++) {
        if (Math.abs(k - home[2]) === r || Math.abs(j - home[1]) === r) {
          for (let i = lo[0]!; i <= hi[0]!; i++) cellAt(i, j, k);
        } else {
          // Inside the shell's faces in z and y, only its two ends in x are on it.
          if (home[0] - r >= 0) cellAt(home[0] - r, j, k);
          if (home[0] + r < cells[0]) cellAt(home[0] + r, j, k);
        }
      }
    }
  }
}
