/**
 * The part of a scene loaded so far, put together on the page's side from
 * the ranges of splats the load worker sends as it decodes a file that
 * arrives in order (INRIA PLY, .splat; src/io/load-worker.ts), so that the
 * viewer draws the scene while it downloads. DOM-free.
 *
 * Memory: one copy of the splats received, sized once by the count the
 * file declares (checked against the load limits before any splat was
 * decoded), or doubling as they come for a file that declares none, and
 * never past the preview's most (src/io/load-limits.ts PREVIEW_SHARE).
 * The loader drops it once the load ends, whichever way.
 */
import { allocateSplatCloud, shCoefficients, type SplatCloud } from '../scene/splat-cloud';

/** A range of decoded splats, in the SplatCloud layouts, as the worker sends it. */
export interface PreviewPart extends Omit<SplatCloud, 'bounds' | 'antiAliasing'> {
  /** The index in the scene of the part's first splat. */
  first: number;
  /** The splats the file declares, or null when it declares none. */
  expected: number | null;
  /** The most splats the preview will hold (previewSplatLimit): its store never grows past them. */
  most: number;
}

/** Fields copied per splat: [name, floats per splat] (sh: per SH degree). */
const FIELDS = [['positions', 3], ['scales', 3], ['rotations', 4], ['opacities', 1], ['dc', 3]] as const;
/** The first capacity of a scene that declares no count (its parts come in tens of thousands). */
const FIRST_CAPACITY = 65536;

export class ScenePreview {
  private store: SplatCloud | null = null;
  private received = 0;
  private readonly bounds = { min: [Infinity, Infinity, Infinity] as [number, number, number], max: [-Infinity, -Infinity, -Infinity] as [number, number, number] };

  /**
   * Adds the next range (parts come in order, each starting where the last
   * ended) and returns the scene so far: a SplatCloud over the splats
   * received, its arrays views of this preview's (valid until the next add).
   */
  add(part: PreviewPart): SplatCloud {
    if (part.first !== this.received) throw new Error(`preview parts out of order: splat ${part.first} after ${this.received}`);
    if (this.store && part.shDegree !== this.store.shDegree) throw new Error('preview parts of different SH degrees');
    const store = this.reserve(part.first + part.count, part);
    const n = part.first;
    for (const [name, width] of FIELDS) store[name].set(part[name], n * width);
    store.sh.set(part.sh, n * 3 * shCoefficients(part.shDegree));
    this.extendBounds(part.positions);
    this.received += part.count;
    return this.view();
  }

  /** The store, grown to hold `needed` splats. */
  private reserve(needed: number, part: PreviewPart): SplatCloud {
    const current = this.store;
    const capacity = current?.count ?? 0;
    if (current && needed <= capacity) return current;
    const wanted = part.expected !== null && part.expected >= needed ? part.expected : Math.max(needed, 2 * capacity, FIRST_CAPACITY);
    const size = Math.max(needed, Math.min(wanted, part.most));
    const grown = allocateSplatCloud(size, part.shDegree);
    if (current) {
      for (const [name] of FIELDS) grown[name].set(current[name]);
      grown.sh.set(current.sh);
    }
    this.store = grown;
    return grown;
  }

  private extendBounds(positions: Float32Array): void {
    const { min, max } = this.bounds;
    for (let i = 0; i < positions.length; i += 3) {
      for (let a = 0; a < 3; a++) {
        const v = positions[i + a]!;
        if (v < min[a]!) min[a] = v;
        if (v > max[a]!) max[a] = v;
      }
    }
  }

  private view(): SplatCloud {
    const store = this.store!;
    const n = this.received;
    const k = 3 * shCoefficients(store.shDegree);
    return {
      count: n,
      shDegree: store.shDegree,
      positions: store.positions.subarray(0, 3 * n),
      scales: store.scales.subarray(0, 3 * n),
      rotations: store.rotations.subarray(0, 4 * n),
      opacities: store.opacities.subarray(0, n),
      dc: store.dc.subarray(0, 3 * n),
      sh: store.sh.subarray(0, k * n),
      bounds: { min: [...this.bounds.min], max: [...this.bounds.max] },
    };
  }
}
