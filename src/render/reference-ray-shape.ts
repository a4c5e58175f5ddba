/**
 * A splat's ray shape for the CPU reference's per-pixel order
 * (reference-pixel-order.ts), as shaders/tile_ray_shape.wgsl works it out
 * on the GPU, in double: what its depth along any pixel's ray needs. From
 * its covariance Σ and mean μ in the reference camera (z forward):
 * A = adj(Σ + τI) at trace 1 (Σ⁻¹ up to scale, no splat thinner than
 * PER_PIXEL_FLATTEST allows: τ = PER_PIXEL_FLATTEST · tr Σ), u = A μ, and
 * the reach PER_PIXEL_DEPTH_REACH · σ of its depth; its density along a
 * pixel's ray d (z = 1) peaks at depth dᵀu / dᵀAd.
 */
import { PER_PIXEL_DEPTH_REACH, PER_PIXEL_FLATTEST } from './frame-renderer';

/** Values per splat: A (xx, xy, yy, xz, yz, zz), u (x, y, z), reach. */
export const RAY_SHAPE_VALUES = 10;
/** Where the reach sits among a splat's RAY_SHAPE_VALUES. */
const REACH_AT = 9;

/** Splat k's reach: how far its depth along any ray may stray from its centre's depth. */
export function rayShapeReach(rayShape: Float64Array, k: number): number {
  return rayShape[RAY_SHAPE_VALUES * k + REACH_AT]!;
}

/** Writes splat k's ray shape into `out` from Σ (xx, xy, xz, yy, yz, zz) and μ (x, y, z) in the reference camera. */
export function writeRayShape(
  out: Float64Array, k: number,
  sxx: number, sxy: number, sxz: number, syy: number, syz: number, szz: number,
  mx: number, my: number, mz: number,
): void {
  const thicken = PER_PIXEL_FLATTEST * (sxx + syy + szz);
  const txx = sxx + thicken, tyy = syy + thicken, tzz = szz + thicken;
  const norm = 1 / ((tyy * tzz - syz * syz) + (txx * tzz - sxz * sxz) + (txx * tyy - sxy * sxy));
  const axx = (tyy * tzz - syz * syz) * norm, axy = (sxz * syz - sxy * tzz) * norm, axz = (sxy * syz - sxz * tyy) * norm;
  const ayy = (txx * tzz - sxz * sxz) * norm, ayz = (sxy * sxz - txx * syz) * norm, azz = (txx * tyy - sxy * sxy) * norm;
  const at = RAY_SHAPE_VALUES * k;
  out[at] = axx;
  out[at + 1] = axy;
  out[at + 2] = ayy;
  out[at + 3] = axz;
  out[at + 4] = ayz;
  out[at + 5] = azz;
  out[at + 6] = axx * mx + axy * my + axz * mz;
  out[at + 7] = axy * mx + ayy * my + ayz * mz;
  out[at + 8] = axz * mx + ayz * my + azz * mz;
  out[at + REACH_AT] = PER_PIXEL_DEPTH_REACH * Math.sqrt(szz);
}
