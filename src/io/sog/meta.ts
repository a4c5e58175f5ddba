/**
 * The meta.json of a PlayCanvas SOG scene ("Spatially Ordered Gaussians"):
 * read, checked and reduced to what decoding needs (SogLayout). DOM-free.
 *
 * A SOG scene is a meta.json plus 8-bit RGBA images, lossless WebP by
 * default, either as loose files beside meta.json or zipped into one `.sog`
 * bundle (meta.json at the archive root, the images under the names
 * meta.json gives them). In every per-splat image, splat i is pixel i in
 * reading order (x = i mod W, y = floor(i / W)); count ≤ W × H and the
 * trailing pixels are unused.
 *
 * Version 2 (`"version": 2`):
 * - count: the number of splats.
 * - means: mins[3], maxs[3], files [means_l, means_u]. Per axis a 16-bit
 *   value u = low byte (means_l R/G/B) + 256 × high byte (means_u R/G/B)
 *   spreads evenly over [min, max] of t = sign(x) · ln(1 + |x|), a log
 *   transform that spends the precision near the origin; so
 *   x = sign(t) · (e^|t| − 1).
 * - scales: codebook of up to 256 log scales; R, G, B index it per axis.
 * - quats: "smallest three". A − 252 is the index, in w x y z order, of the
 *   component with the largest magnitude, made positive and left out; R, G,
 *   B hold the other three in that order, each (byte / 255 · 2 − 1) / √2,
 *   and the left-out one is √(1 − their squares).
 * - sh0: codebook of degree-0 SH coefficients; R, G, B index it; A is the
 *   opacity × 255, already through the sigmoid (not a logit).
 * - shN (optional): count (palette entries, at most 65,536), bands (1..3),
 *   codebook, files [centroids, labels]. A splat's palette entry is
 *   L = R + 256 × G of the labels image. The centroids image is 64 entries a
 *   row, K pixels an entry (K = 3, 8, 15 coefficients for bands 1, 2, 3):
 *   coefficient k of entry L is the pixel at x = (L mod 64) · K + k,
 *   y = floor(L / 64), whose R, G, B index the codebook for red, green, blue.
 *
 * Version 1 (no version field; the first SOG files) differs in: count is
 * means.shape[0]; no codebooks but linear ranges, value = min + (max − min) ·
 * byte / 255, per axis for scales (log scales), per channel for sh0 where the
 * fourth range is the opacity logit (opacity = sigmoid), and one scalar range
 * for all shN coefficients; the SH bands follow from the centroids width
 * (192, 512, 960); the palette is as large as the centroids image.
 */
import { SplatFormatError } from '../format-error';
import { WEBP_MAX_DIMENSION } from '../webp-header';

/**
 * The most bytes of a meta.json that are read. Real ones are a few KB: a
 * few numbers, codebooks of at most 256 numbers each and file names.
 */
export const SOG_META_MAX_BYTES = 2 ** 20;

/** The most splats a SOG scene can hold: one per pixel of the largest WebP. */
export const SOG_MAX_SPLATS = WEBP_MAX_DIMENSION * WEBP_MAX_DIMENSION;

/** 16-bit labels address at most this many palette entries. */
export const MAX_PALETTE = 65536;
/** SH palette entries a row of the centroids image holds. */
export const PALETTE_ROW = 64;

type Json = Record<string, unknown>;

interface Lerp {
  mins: number[];
  maxs: number[];
}

/** meta.json, checked and reduced to what decoding needs. */
export interface SogLayout {
  version: 1 | 2;
  count: number;
  /** meta.json's `antialias`: trained with gsplat's anti-aliased rasterizer. */
  antialias: boolean;
  means: { mins: number[]; maxs: number[]; files: [string, string] };
  scales: { codebook?: number[]; lerp?: Lerp; file: string };
  quats: { file: string };
  sh0: { codebook?: number[]; lerp?: Lerp; file: string };
  shN?: {
    bands?: number;
    paletteCount?: number;
    codebook?: number[];
    lerp?: { min: number; max: number };
    files: [string, string];
  };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A value as a message shows it. For an array, `fits` (what its elements
 * must be) names the first element that is not.
 */
function describeValue(value: unknown, fits?: (element: unknown) => boolean): string {
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (Array.isArray(value)) {
    const bad = fits ? value.findIndex((v) => !fits(v)) : -1;
    return `an array of ${value.length}${bad < 0 ? '' : ` whose element ${bad} is ${describeValue(value[bad])}`}`;
  }
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

function member(parent: Json, path: string): unknown {
  const key = path.slice(path.lastIndexOf('.') + 1);
  const value = parent[key];
  if (value === undefined) throw new SplatFormatError(`meta.json has no ${path}`);
  return value;
}

function objectAt(parent: Json, path: string): Json {
  const value = member(parent, path);
  if (!isObject(value)) throw new SplatFormatError(`meta.json's ${path} must be an object, found ${describeValue(value)}`);
  return value;
}

const isFiniteNumber = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v);
const isFileName = (v: unknown): boolean => typeof v === 'string' && v !== '';

function numbersAt(parent: Json, path: string, length: number): number[] {
  const value = member(parent, path);
  if (!Array.isArray(value) || value.length !== length || !value.every(isFiniteNumber)) {
    throw new SplatFormatError(`meta.json's ${path} must be an array of ${length} finite numbers, found ${describeValue(value, isFiniteNumber)}`);
  }
  return value as number[];
}

function numberAt(parent: Json, path: string): number {
  const value = member(parent, path);
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new SplatFormatError(`meta.json's ${path} must be a finite number, found ${describeValue(value)}`);
  }
  return value;
}

function codebookAt(parent: Json, path: string): number[] {
  const value = member(parent, path);
  if (!Array.isArray(value) || value.length < 1 || value.length > 256 || !value.every(isFiniteNumber)) {
    throw new SplatFormatError(`meta.json's ${path} must be an array of 1 to 256 finite numbers, found ${describeValue(value, isFiniteNumber)}`);
  }
  return value as number[];
}

function filesAt(parent: Json, path: string, length: number): string[] {
  const value = member(parent, path);
  if (!Array.isArray(value) || value.length < length || !value.slice(0, length).every(isFileName)) {
    const what = length === 1 ? 'one file name' : `${length} file names`;
    const found = Array.isArray(value) ? describeValue(value.slice(0, length), isFileName) : describeValue(value);
    throw new SplatFormatError(`meta.json's ${path} must list ${what}, found ${found}`);
  }
  return value.slice(0, length) as string[];
}

function checkCount(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new SplatFormatError(`meta.json's ${path} must be a whole number of splats, found ${describeValue(value)}`);
  }
  if (value > SOG_MAX_SPLATS) {
    throw new SplatFormatError(
      `meta.json's ${path} of ${value} splats is more than SOG images can hold ` +
      `(${WEBP_MAX_DIMENSION} × ${WEBP_MAX_DIMENSION} = ${SOG_MAX_SPLATS} pixels)`,
    );
  }
  return value;
}

export function metaTooLarge(bytes: number): SplatFormatError {
  return new SplatFormatError(
    `meta.json is ${bytes.toLocaleString('en-US')} bytes: too large for a SOG meta.json, which holds a few numbers, ` +
    `codebooks and file names (real ones are a few KB; at most ${SOG_META_MAX_BYTES.toLocaleString('en-US')} bytes are read)`,
  );
}

export function parseSogMeta(metaJson: Uint8Array | string): SogLayout {
  // Refused by size before it is decoded, so that the message says what is wrong with it.
  if (metaJson.length > SOG_META_MAX_BYTES) throw metaTooLarge(metaJson.length);
  let text: string;
  try {
    text = typeof metaJson === 'string' ? metaJson : new TextDecoder('utf-8', { fatal: true }).decode(metaJson);
  } catch {
    throw new SplatFormatError('meta.json is not valid UTF-8 text');
  }
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch (err) {
    throw new SplatFormatError(`meta.json is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(meta)) throw new SplatFormatError(`meta.json must hold a JSON object, found ${describeValue(meta)}`);

  const version = meta['version'];
  if (version !== undefined && version !== 2) {
    throw new SplatFormatError(
      `Unsupported SOG version ${describeValue(version)}: only version 2 and the first, unversioned layout are supported`,
    );
  }
  const means = objectAt(meta, 'means');
  const scales = objectAt(meta, 'scales');
  const quats = objectAt(meta, 'quats');
  const sh0 = objectAt(meta, 'sh0');
  const shN = meta['shN'] === undefined || meta['shN'] === null ? undefined : objectAt(meta, 'shN');
  const [lo, hi] = filesAt(means, 'means.files', 2) as [string, string];
  // Version 1 names the packing; smallest-three is the only one there is.
  const encoding = quats['encoding'];
  if (encoding !== undefined && encoding !== 'quaternion_packed') {
    throw new SplatFormatError(`meta.json's quats.encoding ${describeValue(encoding)} is not supported (only "quaternion_packed")`);
  }
  const antialias = meta['antialias'] ?? false;
  if (typeof antialias !== 'boolean') throw new SplatFormatError(`meta.json's antialias must be true or false, found ${describeValue(antialias)}`);
  const layout: Omit<SogLayout, 'count' | 'version' | 'scales' | 'sh0' | 'shN'> = {
    antialias,
    means: { mins: numbersAt(means, 'means.mins', 3), maxs: numbersAt(means, 'means.maxs', 3), files: [lo, hi] },
    quats: { file: filesAt(quats, 'quats.files', 1)[0]! },
  };

  if (version === 2) {
    return {
      ...layout,
      version: 2,
      count: checkCount(member(meta, 'count'), 'count'),
      scales: { codebook: codebookAt(scales, 'scales.codebook'), file: filesAt(scales, 'scales.files', 1)[0]! },
      sh0: { codebook: codebookAt(sh0, 'sh0.codebook'), file: filesAt(sh0, 'sh0.files', 1)[0]! },
      shN: shN && {
        // bands and count are written by every version 2 writer seen so far;
        // without them the centroids image still tells both.
        bands: shN['bands'] === undefined ? undefined : numberAt(shN, 'shN.bands'),
        paletteCount: shN['count'] === undefined ? undefined : numberAt(shN, 'shN.count'),
        codebook: codebookAt(shN, 'shN.codebook'),
        files: filesAt(shN, 'shN.files', 2) as [string, string],
      },
    };
  }

  // Version 1: the count is the first dimension of the means' shape.
  const shape = member(means, 'means.shape');
  if (!Array.isArray(shape) || shape.length < 1) {
    throw new SplatFormatError(`meta.json's means.shape must be an array starting with the splat count, found ${describeValue(shape)}`);
  }
  return {
    ...layout,
    version: 1,
    count: checkCount(shape[0], 'means.shape[0]'),
    scales: { lerp: { mins: numbersAt(scales, 'scales.mins', 3), maxs: numbersAt(scales, 'scales.maxs', 3) }, file: filesAt(scales, 'scales.files', 1)[0]! },
    sh0: { lerp: { mins: numbersAt(sh0, 'sh0.mins', 4), maxs: numbersAt(sh0, 'sh0.maxs', 4) }, file: filesAt(sh0, 'sh0.files', 1)[0]! },
    shN: shN && {
      lerp: { min: numberAt(shN, 'shN.mins'), max: numberAt(shN, 'shN.maxs') },
      files: filesAt(shN, 'shN.files', 2) as [string, string],
    },
  };
}

/**
 * The image files a meta.json names, in the order parseSog reads them: what
 * a caller must be able to supply for an unbundled scene.
 */
export function sogFileNames(metaJson: Uint8Array | string): string[] {
  const layout = parseSogMeta(metaJson);
  const names = [...layout.means.files, layout.quats.file, layout.scales.file, layout.sh0.file];
  if (layout.shN) names.push(...layout.shN.files);
  return names;
}

