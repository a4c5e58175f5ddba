/**
 * A large scene for benchmarks, made from a real one: `copies` copies of a
 * cloud on a square grid in the x–z plane, each shifted by the scene's
 * robust extent plus 10 %. State in results that the scene is replicated.
 */
import { allocateSplatCloud, computeBounds, robustBounds, shCoefficients, type SplatCloud } from '../src/scene/splat-cloud';

/** Where each of `copies` copies of `source` goes: its shift in x and z, on a square grid centred on the original. */
export function gridShifts(source: SplatCloud, copies: number): [number, number][] {
  const { min, max } = robustBounds(source.positions, source.count);
  const step = [1.1 * (max[0] - min[0]), 1.1 * (max[2] - min[2])];
  const side = Math.ceil(Math.sqrt(copies));
  return Array.from({ length: copies }, (_, c) => [((c % side) - (side - 1) / 2) * step[0]!, (Math.floor(c / side) - (side - 1) / 2) * step[1]!]);
}

export function replicateCloud(source: SplatCloud, copies: number): SplatCloud {
  if (copies <= 1) return source;
  const n = source.count;
  const out = allocateSplatCloud(n * copies, source.shDegree);
  const shFloats = shCoefficients(source.shDegree) * 3;
  const shifts = gridShifts(source, copies);
  for (let c = 0; c < copies; c++) {
    const [dx, dz] = shifts[c]!;
    const base = c * n;
    for (let i = 0; i < n; i++) {
      out.positions[3 * (base + i)] = source.positions[3 * i]! + dx;
      out.positions[3 * (base + i) + 1] = source.positions[3 * i + 1]!;
      out.positions[3 * (base + i) + 2] = source.positions[3 * i + 2]! + dz;
    }
    out.scales.set(source.scales.subarray(0, 3 * n), 3 * base);
    out.rotations.set(source.rotations.subarray(0, 4 * n), 4 * base);
    out.opacities.set(source.opacities.subarray(0, n), base);
    out.dc.set(source.dc.subarray(0, 3 * n), 3 * base);
    out.sh.set(source.sh.subarray(0, shFloats * n), shFloats * base);
  }
  out.bounds = computeBounds(out.positions, out.count);
  return out;
}
