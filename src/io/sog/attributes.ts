/**
 * Decoding a SOG scene's images into the SplatCloud arrays, attribute by
 * attribute (meta.ts describes the layouts): positions, rotations, scales,
 * colours and opacities, and the SH palette with its labels. Every index an
 * image holds is checked against the codebook or palette it points into.
 * DOM-free.
 */
import { shCoefficients, type ShDegree, type SplatCloud } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import type { DecodedWebp } from '../webp-decode';
import { MAX_PALETTE, PALETTE_ROW, type SogLayout } from './meta';

const QUAT_MODE_BASE = 252;

/** A 256-entry lookup table; indices past a short codebook are refused when seen. */
function table(values: ArrayLike<number>, map: (v: number) => number = (v) => v): Float64Array {
  const out = new Float64Array(256);
  for (let i = 0; i < 256; i++) out[i] = i < values.length ? map(values[i]!) : NaN;
  return out;
}

function lerpTable(min: number, max: number, map: (v: number) => number = (v) => v): Float64Array {
  const out = new Float64Array(256);
  for (let i = 0; i < 256; i++) out[i] = map(min + (max - min) * (i / 255));
  return out;
}

/** Throws when a channel holds an index past the end of a short codebook. */
function checkIndices(rgba: Uint8Array, count: number, channels: number, limit: number, name: string, what: string): void {
  if (limit >= 256) return;
  for (let i = 0; i < count; i++) {
    for (let c = 0; c < channels; c++) {
      const index = rgba[i * 4 + c]!;
      if (index >= limit) {
        throw new SplatFormatError(`'${name}' gives splat ${i} index ${index}, past the end of the ${limit}-entry ${what}`);
      }
    }
  }
}

const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));

export function decodePositions(cloud: SplatCloud, layout: SogLayout, low: Uint8Array, high: Uint8Array): void {
  const { count, positions } = cloud;
  for (let a = 0; a < 3; a++) {
    const min = layout.means.mins[a]!;
    const span = layout.means.maxs[a]! - min;
    for (let i = 0; i < count; i++) {
      const u = low[i * 4 + a]! | (high[i * 4 + a]! << 8);
      const t = min + span * (u / 65535);
      positions[i * 3 + a] = Math.sign(t) * Math.expm1(Math.abs(t));
    }
  }
}

export function decodeRotations(cloud: SplatCloud, rgba: Uint8Array, name: string): void {
  const { count, rotations } = cloud;
  const q = [0, 0, 0, 0]; // w x y z
  for (let i = 0; i < count; i++) {
    const mode = rgba[i * 4 + 3]! - QUAT_MODE_BASE;
    if (mode < 0 || mode > 3) {
      throw new SplatFormatError(
        `'${name}' gives splat ${i} the alpha ${rgba[i * 4 + 3]}, but quaternion alphas are 252..255 (252 + index of the largest component)`,
      );
    }
    let packed = 0;
    let sum = 0;
    for (let c = 0; c < 4; c++) {
      if (c === mode) continue;
      const v = ((rgba[i * 4 + packed]! / 255) * 2 - 1) * Math.SQRT1_2;
      packed++;
      q[c] = v;
      sum += v * v;
    }
    q[mode] = Math.sqrt(Math.max(0, 1 - sum));
    // Quantisation can leave the three stored parts slightly too long.
    const length = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!);
    for (let c = 0; c < 4; c++) rotations[i * 4 + c] = q[c]! / length;
  }
}

export function decodeScales(cloud: SplatCloud, layout: SogLayout, rgba: Uint8Array, name: string): void {
  const { count, scales } = cloud;
  const { codebook, lerp } = layout.scales;
  const tables = codebook
    ? [0, 1, 2].map(() => table(codebook, Math.exp))
    : [0, 1, 2].map((a) => lerpTable(lerp!.mins[a]!, lerp!.maxs[a]!, Math.exp));
  if (codebook) checkIndices(rgba, count, 3, codebook.length, name, 'scales codebook');
  for (let i = 0; i < count; i++) {
    for (let a = 0; a < 3; a++) scales[i * 3 + a] = tables[a]![rgba[i * 4 + a]!]!;
  }
}

export function decodeColours(cloud: SplatCloud, layout: SogLayout, rgba: Uint8Array, name: string): void {
  const { count, dc, opacities } = cloud;
  const { codebook, lerp } = layout.sh0;
  const tables = codebook
    ? [0, 1, 2].map(() => table(codebook))
    : [0, 1, 2].map((c) => lerpTable(lerp!.mins[c]!, lerp!.maxs[c]!));
  if (codebook) checkIndices(rgba, count, 3, codebook.length, name, 'sh0 codebook');
  // Version 2 stores the opacity itself; version 1 a range of logits.
  const alpha = lerp ? lerpTable(lerp.mins[3]!, lerp.maxs[3]!, sigmoid) : lerpTable(0, 1);
  for (let i = 0; i < count; i++) {
    for (let c = 0; c < 3; c++) dc[i * 3 + c] = tables[c]![rgba[i * 4 + c]!]!;
    opacities[i] = alpha[rgba[i * 4 + 3]!]!;
  }
}

export interface Palette {
  shDegree: ShDegree;
  /** Coefficients of every entry, in the SplatCloud layout: (entry * K + k) * 3 + channel. */
  values: Float32Array;
  entries: number;
}

const BANDS_BY_WIDTH: Record<number, ShDegree> = { 192: 1, 512: 2, 960: 3 };

/** Band count and palette size, from meta.json and the centroids image size. */
export function paletteShape(layout: SogLayout, name: string, width: number, height: number): { shDegree: ShDegree; entries: number } {
  const shN = layout.shN!;
  let shDegree: ShDegree;
  if (shN.bands !== undefined) {
    if (shN.bands !== 1 && shN.bands !== 2 && shN.bands !== 3) {
      throw new SplatFormatError(`meta.json's shN.bands must be 1, 2 or 3, found ${shN.bands}`);
    }
    shDegree = shN.bands;
  } else {
    const fromWidth = BANDS_BY_WIDTH[width];
    if (fromWidth === undefined) {
      throw new SplatFormatError(`'${name}' is ${width} pixels wide; SH palettes are 192, 512 or 960 (64 entries × 3, 8 or 15 coefficients)`);
    }
    shDegree = fromWidth;
  }
  const k = shCoefficients(shDegree);
  if (width !== PALETTE_ROW * k) {
    throw new SplatFormatError(
      `'${name}' is ${width} pixels wide, but an SH palette of ${shDegree} bands is ${PALETTE_ROW * k} (64 entries × ${k} coefficients)`,
    );
  }
  if (height > MAX_PALETTE / PALETTE_ROW) {
    throw new SplatFormatError(`'${name}' has ${height} rows, more than the ${MAX_PALETTE / PALETTE_ROW} that 16-bit labels can address`);
  }
  let entries = PALETTE_ROW * height;
  if (shN.paletteCount !== undefined) {
    const n = shN.paletteCount;
    if (!Number.isInteger(n) || n < 1 || n > MAX_PALETTE) {
      throw new SplatFormatError(`meta.json's shN.count must be a whole number from 1 to ${MAX_PALETTE}, found ${n}`);
    }
    if (n > entries) {
      throw new SplatFormatError(`'${name}' has room for ${entries} palette entries, but meta.json's shN.count is ${n}`);
    }
    entries = n;
  }
  return { shDegree, entries };
}

export function decodePalette(layout: SogLayout, image: DecodedWebp, name: string): Palette {
  const shN = layout.shN!;
  const { shDegree, entries } = paletteShape(layout, name, image.width, image.height);
  const k = shCoefficients(shDegree);
  const lookup = shN.codebook ? table(shN.codebook) : lerpTable(shN.lerp!.min, shN.lerp!.max);
  const limit = shN.codebook ? shN.codebook.length : 256;
  const values = new Float32Array(entries * k * 3);
  for (let e = 0; e < entries; e++) {
    const x0 = (e % PALETTE_ROW) * k;
    const y = Math.floor(e / PALETTE_ROW);
    for (let j = 0; j < k; j++) {
      const pixel = (y * image.width + x0 + j) * 4;
      for (let c = 0; c < 3; c++) {
        const index = image.data[pixel + c]!;
        if (index >= limit) {
          throw new SplatFormatError(`'${name}' gives palette entry ${e} index ${index}, past the end of the ${limit}-entry shN codebook`);
        }
        values[(e * k + j) * 3 + c] = lookup[index]!;
      }
    }
  }
  return { shDegree, values, entries };
}

export function decodeSh(cloud: SplatCloud, palette: Palette, labels: Uint8Array, name: string): void {
  const { count, sh } = cloud;
  const stride = shCoefficients(palette.shDegree) * 3;
  for (let i = 0; i < count; i++) {
    const label = labels[i * 4]! | (labels[i * 4 + 1]! << 8);
    if (label >= palette.entries) {
      throw new SplatFormatError(`'${name}' gives splat ${i} palette entry ${label}, but the palette has ${palette.entries} entries`);
    }
    sh.set(palette.values.subarray(label * stride, (label + 1) * stride), i * stride);
  }
}
