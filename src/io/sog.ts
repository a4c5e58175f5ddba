/**
 * Parser for PlayCanvas SOG scenes ("Spatially Ordered Gaussians") into a
 * SplatCloud with activations applied. DOM-free: runs in a module Web Worker
 * and in Node.
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
 *
 * Coordinates are those of the PLY the scene was made from (writers store
 * PLY-space numbers), so no axes are converted here.
 *
 * What a scene may cost follows from meta.json, which is read first and is
 * small (SOG_META_MAX_BYTES): its count is checked against the load limits
 * before any image is read, and each image is refused, before it is read or
 * inflated, when it is larger than an image that count can need (a
 * per-splat image has at most 4 × count + 2^20 pixels, perSplatCheck; the
 * SH centroids at most 960 × 1024) can take as WebP (webpByteBound) or than
 * limits.maxBytes. A zip entry is inflated as a stream that stops at its
 * stated size (zip-entries.ts).
 */
import { ANTIALIASED_FILTER } from '../scene/anti-aliasing';
import {
  allocateSplatCloud, computeBounds, shCoefficients, type ShDegree, type SplatCloud,
} from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';
import { checkByteCount, checkSplatCount, DEFAULT_LOAD_LIMITS, type LoadLimits } from './load-limits';
import {
  decodeWebp, readWebpSize, WEBP_MAX_DIMENSION, webpByteBound, type DecodedWebp, type WebpSize,
} from './webp-decode';
import { inflateExactly, listZipEntries, zipEntryData, type ZipEntry } from './zip-entries';

export interface ParseSogOptions {
  /** Called with the fraction done, 0..1, as images are read and decoded. */
  onProgress?: (fraction: number) => void;
  /** What the scene may cost (default DEFAULT_LOAD_LIMITS): the count and every image are checked against it. */
  limits?: LoadLimits;
}

/**
 * Reads a file meta.json names. `maxBytes` is the most the file may hold:
 * a reader that can tell a file is larger should refuse it (throw) or stop
 * reading past the bound; parseSog refuses anything longer it returns.
 */
export type SogEntryReader = (name: string, maxBytes: number) => Promise<Uint8Array>;

/**
 * The most bytes of a meta.json that are read. Real ones are a few KB: a
 * few numbers, codebooks of at most 256 numbers each and file names.
 */
export const SOG_META_MAX_BYTES = 2 ** 20;

/** The most splats a SOG scene can hold: one per pixel of the largest WebP. */
export const SOG_MAX_SPLATS = WEBP_MAX_DIMENSION * WEBP_MAX_DIMENSION;

/** 16-bit labels address at most this many palette entries. */
const MAX_PALETTE = 65536;
const PALETTE_ROW = 64;
const QUAT_MODE_BASE = 252;

/** True for a zip archive (local file header magic PK\x03\x04), as a .sog bundle is. */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

// ---------------------------------------------------------------------------
// meta.json

type Json = Record<string, unknown>;

interface Lerp {
  mins: number[];
  maxs: number[];
}

/** meta.json, checked and reduced to what decoding needs. */
interface SogLayout {
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

function describeValue(value: unknown): string {
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
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

function numbersAt(parent: Json, path: string, length: number): number[] {
  const value = member(parent, path);
  if (!Array.isArray(value) || value.length !== length || !value.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new SplatFormatError(`meta.json's ${path} must be an array of ${length} finite numbers, found ${describeValue(value)}`);
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
  if (!Array.isArray(value) || value.length < 1 || value.length > 256 ||
      !value.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new SplatFormatError(`meta.json's ${path} must be an array of 1 to 256 finite numbers, found ${describeValue(value)}`);
  }
  return value as number[];
}

function filesAt(parent: Json, path: string, length: number): string[] {
  const value = member(parent, path);
  if (!Array.isArray(value) || value.length < length || !value.slice(0, length).every((v) => typeof v === 'string' && v !== '')) {
    const what = length === 1 ? 'one file name' : `${length} file names`;
    throw new SplatFormatError(`meta.json's ${path} must list ${what}, found ${describeValue(value)}`);
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

function metaTooLarge(bytes: number): SplatFormatError {
  return new SplatFormatError(
    `meta.json is ${bytes.toLocaleString('en-US')} bytes: too large for a SOG meta.json, which holds a few numbers, ` +
    `codebooks and file names (real ones are a few KB; at most ${SOG_META_MAX_BYTES.toLocaleString('en-US')} bytes are read)`,
  );
}

function parseMeta(metaJson: Uint8Array | string): SogLayout {
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
  const layout = parseMeta(metaJson);
  const names = [...layout.means.files, layout.quats.file, layout.scales.file, layout.sh0.file];
  if (layout.shN) names.push(...layout.shN.files);
  return names;
}

// ---------------------------------------------------------------------------
// Images

/** The most bytes an image file may hold, and the error for one that holds more. */
interface EntryBound {
  maxBytes: number;
  /** Throws the error for a file `name` of `bytes` bytes (more than maxBytes). */
  refuse: (name: string, bytes: number) => never;
}

/**
 * The bound for a WebP image of at most `pixels` pixels (`why` says where
 * that number comes from): what such an image can take (webpByteBound), and
 * no more than limits.maxBytes.
 */
function imageBound(pixels: number, why: string, limits: LoadLimits): EntryBound {
  const most = webpByteBound(pixels);
  return {
    maxBytes: Math.min(most, limits.maxBytes),
    refuse: (name, bytes) => {
      // The count's bound names the cause when it is the one passed; else the device's.
      if (bytes <= most) checkByteCount(bytes, limits, `'${name}'`);
      throw new SplatFormatError(
        `'${name}' is ${bytes.toLocaleString('en-US')} bytes: more than the ${most.toLocaleString('en-US')} ` +
        `that a WebP image of ${why} can take`,
      );
    },
  };
}

type BoundedReader = (name: string, bound: EntryBound) => Promise<Uint8Array>;

/** Reads an image named in meta.json, checks its header against the count, then decodes it. */
async function loadImage(
  name: string,
  readEntry: BoundedReader,
  bound: EntryBound,
  check: (width: number, height: number) => void,
): Promise<DecodedWebp> {
  let bytes: Uint8Array;
  try {
    bytes = await readEntry(name, bound);
  } catch (err) {
    if (err instanceof SplatFormatError) throw err;
    throw new SplatFormatError(`Could not read '${name}', which meta.json names: ${(err as Error).message}`);
  }
  if (!(bytes instanceof Uint8Array)) {
    throw new SplatFormatError(`Could not read '${name}', which meta.json names: the reader returned no bytes`);
  }
  if (bytes.length > bound.maxBytes) bound.refuse(name, bytes.length);
  let size: WebpSize;
  try {
    size = readWebpSize(bytes);
  } catch (err) {
    throw new SplatFormatError(`'${name}' is ${(err as Error).message}`);
  }
  // Sizes are checked before decoding: a count the images cannot hold is
  // caught without decoding anything, and no forged header gets a decode of
  // a huge image.
  check(size.width, size.height);
  try {
    return await decodeWebp(bytes);
  } catch (err) {
    if (!(err instanceof SplatFormatError)) throw err;
    throw new SplatFormatError(`'${name}': ${err.message}`);
  }
}

/** The most pixels a per-splat image of `count` splats may have (perSplatCheck). */
const perSplatPixels = (count: number): number => 4 * count + 2 ** 20;
/** The largest SH centroids image: 64 entries of 15 coefficients a row, 1024 rows (65,536 entries). */
const MAX_CENTROID_PIXELS = PALETTE_ROW * 15 * (MAX_PALETTE / PALETTE_ROW);

/** A per-splat image must have a pixel for every splat, and not absurdly more. */
function perSplatCheck(name: string, count: number): (width: number, height: number) => void {
  return (width, height) => {
    const pixels = width * height;
    if (pixels < count) {
      throw new SplatFormatError(
        `'${name}' is ${width}×${height} = ${pixels} pixels, too small for meta.json's count of ${count} splats`,
      );
    }
    // Writers pad to a multiple of 4 or to a power of two on each side, so
    // at most about 4× the count; more means the header or the count lies.
    if (pixels > perSplatPixels(count)) {
      throw new SplatFormatError(
        `'${name}' is ${width}×${height} = ${pixels} pixels, far more than meta.json's count of ${count} splats needs`,
      );
    }
  };
}

// ---------------------------------------------------------------------------
// Decoding

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

function decodePositions(cloud: SplatCloud, layout: SogLayout, low: Uint8Array, high: Uint8Array): void {
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

function decodeRotations(cloud: SplatCloud, rgba: Uint8Array, name: string): void {
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

function decodeScales(cloud: SplatCloud, layout: SogLayout, rgba: Uint8Array, name: string): void {
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

function decodeColours(cloud: SplatCloud, layout: SogLayout, rgba: Uint8Array, name: string): void {
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

interface Palette {
  shDegree: ShDegree;
  /** Coefficients of every entry, in the SplatCloud layout: (entry * K + k) * 3 + channel. */
  values: Float32Array;
  entries: number;
}

const BANDS_BY_WIDTH: Record<number, ShDegree> = { 192: 1, 512: 2, 960: 3 };

/** Band count and palette size, from meta.json and the centroids image size. */
function paletteShape(layout: SogLayout, name: string, width: number, height: number): { shDegree: ShDegree; entries: number } {
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

function decodePalette(layout: SogLayout, image: DecodedWebp, name: string): Palette {
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

function decodeSh(cloud: SplatCloud, palette: Palette, labels: Uint8Array, name: string): void {
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

// ---------------------------------------------------------------------------
// Entry points

/** Decodes a scene whose meta.json is parsed, reading its images through `readEntry`. */
async function decodeSog(layout: SogLayout, readEntry: BoundedReader, options: ParseSogOptions): Promise<SplatCloud> {
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  const { count } = layout;
  // Before any image is read: the degree is the one meta.json states (version 2), else 0 until the palette shows it.
  const bands = layout.shN?.bands;
  const statedDegree: ShDegree = bands === 1 || bands === 2 || bands === 3 ? bands : 0;
  checkSplatCount(count, statedDegree, limits, "meta.json's count declares");
  const steps = layout.shN ? 8 : 6;
  let done = 0;
  const step = (): void => options.onProgress?.(++done / steps);

  const pixels = perSplatPixels(count);
  const perSplat = imageBound(pixels, `at most ${pixels.toLocaleString('en-US')} pixels (4 × meta.json's count of ${count} splats + 2^20)`, limits);
  const load = async (name: string): Promise<DecodedWebp> => {
    const image = await loadImage(name, readEntry, perSplat, perSplatCheck(name, count));
    step();
    return image;
  };
  const meansLow = await load(layout.means.files[0]);
  const meansHigh = await load(layout.means.files[1]);
  const quats = await load(layout.quats.file);
  const scales = await load(layout.scales.file);
  const sh0 = await load(layout.sh0.file);
  let palette: Palette | undefined;
  let labels: DecodedWebp | undefined;
  if (layout.shN) {
    const [centroidsName, labelsName] = layout.shN.files;
    const centroidsBound = imageBound(MAX_CENTROID_PIXELS, 'the largest SH palette (960 × 1024 pixels)', limits);
    const centroids = await loadImage(centroidsName, readEntry, centroidsBound, (width, height) => {
      checkSplatCount(count, paletteShape(layout, centroidsName, width, height).shDegree, limits, "meta.json's count declares");
    });
    step();
    palette = decodePalette(layout, centroids, centroidsName);
    labels = await load(labelsName);
  }

  // Allocated only now that every image has decoded with room for `count`.
  let cloud: SplatCloud;
  try {
    cloud = allocateSplatCloud(count, palette?.shDegree ?? 0);
  } catch (err) {
    throw new SplatFormatError(`SOG scene of ${count} splats is too large to load here: ${(err as Error).message}`);
  }
  decodePositions(cloud, layout, meansLow.data, meansHigh.data);
  decodeRotations(cloud, quats.data, layout.quats.file);
  decodeScales(cloud, layout, scales.data, layout.scales.file);
  decodeColours(cloud, layout, sh0.data, layout.sh0.file);
  if (palette && labels) decodeSh(cloud, palette, labels.data, layout.shN!.files[1]);
  cloud.bounds = computeBounds(cloud.positions, count);
  if (layout.antialias) cloud.antiAliasing = { filter: { ...ANTIALIASED_FILTER }, source: 'SOG meta.json "antialias"' };
  step();
  return cloud;
}

/**
 * Parses an unbundled SOG scene: meta.json (at most SOG_META_MAX_BYTES), and
 * a callback that returns the bytes of a file meta.json names, given the
 * most bytes that file may hold (the caller resolves names relative to
 * meta.json: among dropped files, or by fetch).
 */
export async function parseSog(
  metaJson: Uint8Array | string,
  readEntry: SogEntryReader,
  options: ParseSogOptions = {},
): Promise<SplatCloud> {
  return decodeSog(parseMeta(metaJson), (name, bound) => readEntry(name, bound.maxBytes), options);
}

// Zip entries are refused when their stated size could not come from their
// compressed size (deflate expands at most about 1032:1): such an archive is
// damaged or forged, whatever the bound.
const MAX_DEFLATE_RATIO = 1032;
const MAX_ENTRIES = 4096;

function zipError(err: unknown): SplatFormatError {
  if (err instanceof SplatFormatError) return err;
  return new SplatFormatError(
    `The .sog bundle is not a readable zip archive (truncated or damaged?): ${(err as Error).message}`,
  );
}

/**
 * Unpacks one entry of the bundle: refused by its stated size before a byte
 * is inflated when it is more than `maxBytes` (`refuse` throws the error),
 * then inflated into exactly that size, stopping at the first byte more.
 */
function unpackEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number, refuse: (bytes: number) => never): Uint8Array {
  const { name, compressedSize, size, method } = entry;
  const what = `The .sog bundle's entry '${name}'`;
  if (method !== 0 && method !== 8) {
    throw new SplatFormatError(`${what} uses zip compression method ${method}; only stored and deflate are supported`);
  }
  if (entry.encrypted) throw new SplatFormatError(`${what} is encrypted`);
  const plausible = method === 0 ? compressedSize : compressedSize * MAX_DEFLATE_RATIO + 1024;
  if (size > plausible) {
    throw new SplatFormatError(`${what} claims ${size} bytes from ${compressedSize} compressed: the archive is damaged`);
  }
  if (size > maxBytes) refuse(size);
  let data: Uint8Array;
  try {
    data = zipEntryData(bytes, entry);
  } catch (err) {
    throw new SplatFormatError(`${what} could not be unpacked (truncated or damaged?): ${(err as Error).message}`);
  }
  return method === 0 ? data : inflateExactly(data, size, what);
}

/** A path inside the archive: `name` relative to the folder `dir` ('' or ending in '/'). */
function resolveEntryName(dir: string, name: string): string {
  const parts: string[] = [];
  for (const part of `${dir}${name}`.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  return parts.join('/');
}

/**
 * Parses a bundled .sog scene: a zip archive holding meta.json and the images
 * it names (meta.json at the root, or alone in one folder).
 */
export async function parseSogBundle(bytes: Uint8Array, options: ParseSogOptions = {}): Promise<SplatCloud> {
  if (!isZip(bytes)) {
    const head = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new SplatFormatError(
      `Not a .sog bundle: a .sog file is a zip archive (starting 50 4b 03 04), but this ${head === '' ? 'is empty' : `starts ${head}`}`,
    );
  }
  let entries: Map<string, ZipEntry>;
  try {
    entries = listZipEntries(bytes, MAX_ENTRIES);
  } catch (err) {
    throw zipError(err);
  }
  let metaName = entries.has('meta.json') ? 'meta.json' : undefined;
  if (!metaName) {
    const nested = [...entries.keys()].filter((n) => n.endsWith('/meta.json'));
    if (nested.length === 1) metaName = nested[0];
  }
  if (!metaName) {
    const listed = [...entries.keys()].slice(0, 10).map((n) => `'${n}'`).join(', ');
    throw new SplatFormatError(`The .sog bundle has no meta.json (its entries: ${listed || 'none'})`);
  }
  const dir = metaName.slice(0, metaName.lastIndexOf('/') + 1);
  const meta = unpackEntry(bytes, entries.get(metaName)!, SOG_META_MAX_BYTES, (size) => { throw metaTooLarge(size); });
  const layout = parseMeta(meta);
  options.onProgress?.(0.02);
  const readEntry: BoundedReader = async (name, bound) => {
    const entry = entries.get(resolveEntryName(dir, name));
    if (!entry) throw new SplatFormatError(`The .sog bundle has no entry '${name}' that meta.json names`);
    return unpackEntry(bytes, entry, bound.maxBytes, (size) => bound.refuse(name, size));
  };
  return decodeSog(layout, readEntry, {
    limits: options.limits,
    onProgress: (f) => options.onProgress?.(0.02 + 0.98 * f),
  });
}
