/**
 * Writes a SplatCloud as an INRIA 3DGS binary little-endian PLY for the
 * tests and the default scene's generator, with the product writer's
 * header (src/io/writers/inria-ply.ts). Unlike that writer, it inverts the
 * activations plainly (opacities clamped into (0, 1): the default scene's
 * file stays as it was made) and can write Mip-Splatting's filter_3D per
 * splat.
 *
 * The cloud holds activated values, the file holds the raw ones the
 * optimiser trains, so each activation is inverted here: log of the scales,
 * logit of the opacity, the quaternion as stored (w first, as rot_0), and
 * the higher SH bands reordered from coefficient-major RGB triples to the
 * file's channel-major f_rest (15 R, then 15 G, then 15 B at degree 3).
 */

import { shCoefficients, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { inriaPlyHeader, inriaPlyProperties } from '../../src/io/writers/inria-ply';

/**
 * Opacity is clamped into [OPACITY_EPS, 1 - OPACITY_EPS] before the logit so
 * that 0 and 1 give finite values (about ±13.8) that a loader's sigmoid maps
 * back to within 1e-6 of the original.
 */
const OPACITY_EPS = 1e-6;
/** Scales of 0 would give log = -Infinity; exp(log(1e-12)) is still a float32. */
const MIN_SCALE = 1e-12;

/** Property names in the order INRIA's training code writes them (the product's writer's list). */
export const splatPlyProperties = inriaPlyProperties;

export interface SplatPlyOptions {
  /**
   * Mip-Splatting's per-splat 3D filter (standard deviations, one per
   * splat), written as its trainer writes it: a last property filter_3D.
   * The scales and opacities are written as given (the unfiltered ones).
   */
  filter3D?: Float32Array;
}

/** Bytes per splat: 4 per float property (248 at degree 3, 68 at degree 0; 4 more with filter_3D). */
export function splatPlyRowBytes(shDegree: ShDegree, filter3D = false): number {
  return splatPlyProperties(shDegree, filter3D).length * 4;
}

export function writeSplatPly(cloud: SplatCloud, options: SplatPlyOptions = {}): Uint8Array {
  const { count, shDegree } = cloud;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`bad splat count ${count}`);
  const k = shCoefficients(shDegree);
  const expect = (name: string, array: Float32Array, perSplat: number): void => {
    if (array.length < count * perSplat) {
      throw new RangeError(`${name} holds ${array.length} floats, need ${count * perSplat}`);
    }
  };
  expect('positions', cloud.positions, 3);
  expect('scales', cloud.scales, 3);
  expect('rotations', cloud.rotations, 4);
  expect('opacities', cloud.opacities, 1);
  expect('dc', cloud.dc, 3);
  expect('sh', cloud.sh, 3 * k);
  const { filter3D } = options;
  if (filter3D) expect('filter3D', filter3D, 1);

  const header = new TextEncoder().encode(inriaPlyHeader(count, shDegree, filter3D !== undefined));
  const rowBytes = splatPlyRowBytes(shDegree, filter3D !== undefined);
  const bytes = new Uint8Array(header.length + count * rowBytes);
  bytes.set(header, 0);
  // DataView because the header length leaves rows unaligned for a Float32Array.
  const view = new DataView(bytes.buffer);
  let at = header.length;
  const put = (v: number): void => {
    view.setFloat32(at, v, true);
    at += 4;
  };

  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) put(cloud.positions[3 * i + a]!);
    put(0);
    put(0);
    put(0);
    for (let c = 0; c < 3; c++) put(cloud.dc[3 * i + c]!);
    for (let c = 0; c < 3; c++) {
      for (let j = 0; j < k; j++) put(cloud.sh[(i * k + j) * 3 + c]!);
    }
    const o = Math.min(1 - OPACITY_EPS, Math.max(OPACITY_EPS, cloud.opacities[i]!));
    put(Math.log(o / (1 - o)));
    for (let a = 0; a < 3; a++) put(Math.log(Math.max(MIN_SCALE, cloud.scales[3 * i + a]!)));
    for (let a = 0; a < 4; a++) put(cloud.rotations[4 * i + a]!);
    if (filter3D) put(filter3D[i]!);
  }
  return bytes;
}
