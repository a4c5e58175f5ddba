/**
 * A SOG writer for the tests, written from the format description (see the
 * header of src/io/sog/meta.ts), not from any other writer. It aims at output
 * whose decoding is predictable rather than small:
 * - positions: the log transform, 16 bits per axis over the per-axis range,
 *   rounded to the nearest step;
 * - codebooks (version 2): 256 entries evenly spaced over the value range,
 *   each value stored as the nearest entry, so a decoder is off by at most
 *   half the spacing; version 1 stores the same 256 levels as a min/max range;
 * - quaternions: smallest three, rounded to the nearest byte;
 * - higher SH: when the scene has at most `paletteSize` splats, every splat
 *   is its own palette entry (only the codebook rounds); otherwise a few
 *   rounds of k-means, and `expected.sh` holds the entry each splat got.
 * `quantisation` reports the step sizes, from which the tests derive their
 * tolerances. Images are lossless WebP (jsquash's libwebp, `exact` on so the
 * colour under a zero alpha is kept), optionally zipped into a .sog bundle.
 * Node only.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { zipSync, type Zippable } from 'fflate';
import encodeWithLibwebp, { init as initLibwebpEncoder } from '@jsquash/webp/encode.js';
import { shCoefficients, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';

export interface SogWriteOptions {
  /** 2 (default), or 1 for the first, unversioned layout. */
  version?: 1 | 2;
  /** SH degree to store, at most the cloud's (default: the cloud's). */
  shDegree?: ShDegree;
  /** Most palette entries (default and maximum 65,536). */
  paletteSize?: number;
  /** Lloyd iterations when the palette is clustered (default 4). */
  iterations?: number;
  /** Image width in pixels (default ceil(sqrt(count))). */
  width?: number;
}

export interface SogQuantisation {
  /** Per axis, the step of the 16-bit position grid in log-transformed space. */
  positionStep: [number, number, number];
  /** Spacing of the log-scale levels (per axis for version 1). */
  logScaleStep: [number, number, number];
  /** Spacing of the DC levels (per channel for version 1). */
  dcStep: [number, number, number];
  /** Spacing of the opacity levels: 1/255 for version 2 (version 1: in logit space). */
  opacityStep: number;
  /** Spacing of the higher-SH levels. */
  shStep: number;
}

export interface WrittenSog {
  meta: Record<string, unknown>;
  metaJson: string;
  /** WebP bytes by the file name meta.json gives them. */
  files: Map<string, Uint8Array>;
  shDegree: ShDegree;
  quantisation: SogQuantisation;
  /** Palette entry per splat, and the higher-SH values a decoder should get before codebook rounding. */
  expected: { labels: Uint32Array; sh: Float32Array };
}

const FILES = {
  meansLow: 'means_l.webp',
  meansHigh: 'means_u.webp',
  quats: 'quats.webp',
  scales: 'scales.webp',
  sh0: 'sh0.webp',
  centroids: 'shN_centroids.webp',
  labels: 'shN_labels.webp',
};

let encoderReady: Promise<unknown> | undefined;

/** jsquash's encoder, with its wasm read from the package (Node cannot fetch file: URLs). */
function startEncoder(): Promise<unknown> {
  encoderReady ??= (async () => {
    const require = createRequire(import.meta.url);
    // jsquash picks its SIMD build when the engine has SIMD; it then needs
    // that build's wasm, and validating it tells whether that is the case.
    const simd = readFileSync(require.resolve('@jsquash/webp/codec/enc/webp_enc_simd.wasm'));
    const bytes = WebAssembly.validate(simd) ? simd : readFileSync(require.resolve('@jsquash/webp/codec/enc/webp_enc.wasm'));
    const module = await WebAssembly.compile(bytes);
    // The .d.ts declares only init(options); the function also takes a module.
    await initLibwebpEncoder(module as unknown as Parameters<typeof initLibwebpEncoder>[0]);
  })();
  return encoderReady;
}

/** Lossless, exact WebP of an RGBA8 image. */
export function encodeLosslessWebp(rgba: Uint8Array, width: number, height: number): Promise<Uint8Array> {
  return encodeWebp(rgba, width, height);
}

/**
 * WebP of an RGBA8 image: lossless and exact, or with `lossyQuality` (0..100)
 * lossy, which changes the pixels (what a SOG decoder must survive).
 */
export async function encodeWebp(rgba: Uint8Array, width: number, height: number, lossyQuality?: number): Promise<Uint8Array> {
  await startEncoder();
  const image = { data: new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), width, height, colorSpace: 'srgb' } as ImageData;
  const options = lossyQuality === undefined
    ? { lossless: 1, exact: 1, quality: 25, method: 1 }
    : { lossless: 0, quality: lossyQuality, method: 0 };
  return new Uint8Array(await encodeWithLibwebp(image, options));
}

/** 256 evenly spaced levels over [min, max]: the level nearest to v. */
function level(v: number, min: number, step: number): number {
  if (step === 0) return 0;
  return Math.min(255, Math.max(0, Math.round((v - min) / step)));
}

function range(values: ArrayLike<number>, pick: (i: number) => boolean = () => true): [number, number] {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    if (!pick(i)) continue;
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return min <= max ? [min, max] : [0, 0];
}

const logTransform = (x: number): number => Math.sign(x) * Math.log1p(Math.abs(x));
const logit = (p: number): number => {
  const q = Math.min(1 - 1e-6, Math.max(1e-6, p));
  return Math.log(q / (1 - q));
};

/** Assigns each splat's higher SH to a palette of at most `size` entries (k-means, seeded evenly). */
function buildPalette(sh: Float32Array, count: number, dims: number, size: number, iterations: number): { labels: Uint32Array; palette: Float32Array; entries: number } {
  const labels = new Uint32Array(count);
  if (count <= size) {
    for (let i = 0; i < count; i++) labels[i] = i;
    return { labels, palette: sh.slice(0, count * dims), entries: Math.max(1, count) };
  }
  const entries = size;
  const palette = new Float32Array(entries * dims);
  for (let e = 0; e < entries; e++) {
    const from = Math.floor((e * count) / entries);
    palette.set(sh.subarray(from * dims, (from + 1) * dims), e * dims);
  }
  const sums = new Float64Array(entries * dims);
  const sizes = new Uint32Array(entries);
  for (let round = 0; round <= iterations; round++) {
    for (let i = 0; i < count; i++) {
      let best = 0;
      let bestDistance = Infinity;
      for (let e = 0; e < entries; e++) {
        let d = 0;
        for (let j = 0; j < dims && d < bestDistance; j++) {
          const diff = sh[i * dims + j]! - palette[e * dims + j]!;
          d += diff * diff;
        }
        if (d < bestDistance) { bestDistance = d; best = e; }
      }
      labels[i] = best;
    }
    if (round === iterations) break; // the last pass only assigns
    sums.fill(0);
    sizes.fill(0);
    for (let i = 0; i < count; i++) {
      const e = labels[i]!;
      sizes[e]!++;
      for (let j = 0; j < dims; j++) sums[e * dims + j]! += sh[i * dims + j]!;
    }
    for (let e = 0; e < entries; e++) {
      if (sizes[e] === 0) continue; // keep an unused entry where it was
      for (let j = 0; j < dims; j++) palette[e * dims + j] = sums[e * dims + j]! / sizes[e]!;
    }
  }
  return { labels, palette, entries };
}

/** Encodes a SplatCloud as a SOG scene (meta.json + lossless WebP images). */
export async function writeSog(cloud: SplatCloud, options: SogWriteOptions = {}): Promise<WrittenSog> {
  const version = options.version ?? 2;
  const shDegree = options.shDegree ?? cloud.shDegree;
  if (shDegree > cloud.shDegree) throw new Error(`cannot write SH degree ${shDegree} from a degree ${cloud.shDegree} cloud`);
  const n = cloud.count;
  const width = options.width ?? Math.max(1, Math.ceil(Math.sqrt(n)));
  const height = Math.max(1, Math.ceil(n / width));
  const image = (): Uint8Array => new Uint8Array(width * height * 4);
  const files = new Map<string, Uint8Array>();
  const put = async (name: string, rgba: Uint8Array, w = width, h = height): Promise<void> => {
    files.set(name, await encodeLosslessWebp(rgba, w, h));
  };

  // Positions: 16 bits per axis of the log-transformed coordinate.
  const meansLow = image();
  const meansHigh = image();
  const mins: number[] = [];
  const maxs: number[] = [];
  const positionStep: [number, number, number] = [0, 0, 0];
  for (let a = 0; a < 3; a++) {
    const [min, max] = range(cloud.positions, (i) => i % 3 === a);
    const tMin = logTransform(min);
    const tMax = logTransform(max);
    mins.push(tMin);
    maxs.push(tMax);
    const step = (tMax - tMin) / 65535;
    positionStep[a] = step;
    for (let i = 0; i < n; i++) {
      const t = logTransform(cloud.positions[i * 3 + a]!);
      const u = step === 0 ? 0 : Math.min(65535, Math.max(0, Math.round((t - tMin) / step)));
      meansLow[i * 4 + a] = u & 0xff;
      meansHigh[i * 4 + a] = u >> 8;
    }
  }
  for (let i = 0; i < width * height; i++) { meansLow[i * 4 + 3] = 255; meansHigh[i * 4 + 3] = 255; }
  await put(FILES.meansLow, meansLow);
  await put(FILES.meansHigh, meansHigh);

  // Quaternions: smallest three, mode 252 + index of the largest (w x y z).
  const quats = image();
  for (let i = 0; i < width * height; i++) quats[i * 4 + 3] = 252; // unused pixels: identity-shaped
  for (let i = 0; i < n; i++) {
    const q = Array.from(cloud.rotations.subarray(i * 4, i * 4 + 4));
    const length = Math.hypot(...q) || 1;
    let largest = 0;
    for (let c = 1; c < 4; c++) if (Math.abs(q[c]!) > Math.abs(q[largest]!)) largest = c;
    const sign = q[largest]! < 0 ? -1 : 1;
    let packed = 0;
    for (let c = 0; c < 4; c++) {
      if (c === largest) continue;
      const v = (sign * q[c]!) / length; // |v| ≤ 1/√2
      quats[i * 4 + packed] = Math.min(255, Math.max(0, Math.round(((v * Math.SQRT2 + 1) / 2) * 255)));
      packed++;
    }
    quats[i * 4 + 3] = 252 + largest;
  }
  await put(FILES.quats, quats);

  // Scales (log) and colours.
  const logScales = Float64Array.from(cloud.scales, (s) => Math.log(s));
  const scalesImage = image();
  const sh0 = image();
  const logScaleStep: [number, number, number] = [0, 0, 0];
  const dcStep: [number, number, number] = [0, 0, 0];
  let scalesMeta: Record<string, unknown>;
  let sh0Meta: Record<string, unknown>;
  let opacityStep: number;
  if (version === 2) {
    const [sMin, sMax] = range(logScales);
    const sStep = (sMax - sMin) / 255;
    const [cMin, cMax] = range(cloud.dc);
    const cStep = (cMax - cMin) / 255;
    logScaleStep.fill(sStep);
    dcStep.fill(cStep);
    opacityStep = 1 / 255;
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < 3; a++) {
        scalesImage[i * 4 + a] = level(logScales[i * 3 + a]!, sMin, sStep);
        sh0[i * 4 + a] = level(cloud.dc[i * 3 + a]!, cMin, cStep);
      }
      scalesImage[i * 4 + 3] = 255;
      sh0[i * 4 + 3] = Math.round(Math.min(1, Math.max(0, cloud.opacities[i]!)) * 255);
    }
    const codebook = (min: number, step: number): number[] => Array.from({ length: 256 }, (_, k) => min + k * step);
    scalesMeta = { codebook: codebook(sMin, sStep), files: [FILES.scales] };
    sh0Meta = { codebook: codebook(cMin, cStep), files: [FILES.sh0] };
  } else {
    const logits = Array.from(cloud.opacities, logit);
    const [oMin, oMax] = range(logits);
    opacityStep = (oMax - oMin) / 255;
    const sMins: number[] = [], sMaxs: number[] = [], cMins: number[] = [], cMaxs: number[] = [];
    for (let a = 0; a < 3; a++) {
      const [sMin, sMax] = range(logScales, (i) => i % 3 === a);
      const [cMin, cMax] = range(cloud.dc, (i) => i % 3 === a);
      sMins.push(sMin); sMaxs.push(sMax); cMins.push(cMin); cMaxs.push(cMax);
      logScaleStep[a] = (sMax - sMin) / 255;
      dcStep[a] = (cMax - cMin) / 255;
      for (let i = 0; i < n; i++) {
        scalesImage[i * 4 + a] = level(logScales[i * 3 + a]!, sMin, logScaleStep[a]);
        sh0[i * 4 + a] = level(cloud.dc[i * 3 + a]!, cMin, dcStep[a]);
      }
    }
    for (let i = 0; i < n; i++) {
      scalesImage[i * 4 + 3] = 255;
      sh0[i * 4 + 3] = level(logits[i]!, oMin, opacityStep);
    }
    scalesMeta = { shape: [n, 3], dtype: 'float32', mins: sMins, maxs: sMaxs, files: [FILES.scales] };
    sh0Meta = { shape: [n, 1, 4], dtype: 'float32', mins: [...cMins, oMin], maxs: [...cMaxs, oMax], files: [FILES.sh0] };
  }
  await put(FILES.scales, scalesImage);
  await put(FILES.sh0, sh0);

  // Higher SH: palette + labels.
  const k = shCoefficients(shDegree);
  const dims = k * 3;
  const expected = { labels: new Uint32Array(n), sh: new Float32Array(n * dims) };
  let shMeta: Record<string, unknown> | undefined;
  let shStep = 0;
  if (k > 0) {
    // The cloud's own SH, cut down to the degree written (coefficient-major, so a prefix per splat).
    const srcK = shCoefficients(cloud.shDegree);
    const sh = new Float32Array(n * dims);
    for (let i = 0; i < n; i++) sh.set(cloud.sh.subarray(i * srcK * 3, i * srcK * 3 + dims), i * dims);
    const paletteSize = Math.min(65536, options.paletteSize ?? 65536);
    const { labels, palette, entries } = buildPalette(sh, n, dims, paletteSize, options.iterations ?? 4);
    const [min, max] = range(palette);
    shStep = (max - min) / 255;
    const rows = Math.ceil(entries / 64);
    const centroidsWidth = 64 * k;
    const centroids = new Uint8Array(centroidsWidth * rows * 4);
    for (let e = 0; e < entries; e++) {
      const x0 = (e % 64) * k;
      const y = Math.floor(e / 64);
      for (let j = 0; j < k; j++) {
        const pixel = (y * centroidsWidth + x0 + j) * 4;
        for (let c = 0; c < 3; c++) centroids[pixel + c] = level(palette[e * dims + j * 3 + c] ?? 0, min, shStep);
        centroids[pixel + 3] = 255;
      }
    }
    const labelsImage = image();
    for (let i = 0; i < n; i++) {
      const label = labels[i]!;
      labelsImage[i * 4] = label & 0xff;
      labelsImage[i * 4 + 1] = label >> 8;
      labelsImage[i * 4 + 3] = 255;
      expected.sh.set(palette.subarray(label * dims, (label + 1) * dims), i * dims);
    }
    expected.labels.set(labels);
    await put(FILES.centroids, centroids, centroidsWidth, rows);
    await put(FILES.labels, labelsImage);
    const files = [FILES.centroids, FILES.labels];
    shMeta = version === 2
      ? { count: entries, bands: shDegree, codebook: Array.from({ length: 256 }, (_, l) => min + l * shStep), files }
      : { shape: [n, dims], dtype: 'float32', mins: min, maxs: max, quantization: 8, files };
  }

  const means = { mins, maxs, files: [FILES.meansLow, FILES.meansHigh] };
  const meta: Record<string, unknown> = version === 2
    ? {
      version: 2,
      asset: { generator: 'splatsort test writer' },
      count: n,
      means,
      scales: scalesMeta,
      quats: { files: [FILES.quats] },
      sh0: sh0Meta,
      ...(shMeta ? { shN: shMeta } : {}),
    }
    : {
      means: { shape: [n, 3], dtype: 'float32', ...means },
      scales: scalesMeta,
      quats: { shape: [n, 4], dtype: 'uint8', encoding: 'quaternion_packed', files: [FILES.quats] },
      sh0: sh0Meta,
      ...(shMeta ? { shN: shMeta } : {}),
    };
  return {
    meta,
    metaJson: JSON.stringify(meta),
    files,
    shDegree,
    quantisation: { positionStep, logScaleStep, dcStep, opacityStep, shStep },
    expected,
  };
}

export interface BundleOptions {
  /** Put everything under this folder inside the archive (default: the root). */
  folder?: string;
  /** Deflate the entries (default: stored, as WebP does not compress further). */
  deflate?: boolean;
  /** Leave these entries out (for broken-file tests). */
  omit?: string[];
  /** Use this text as meta.json instead of the written one. */
  metaJson?: string;
}

const BUNDLE_TIME = new Date(2024, 0, 1);

/** Zips a written scene into a .sog bundle. */
export function bundleSog(written: WrittenSog, options: BundleOptions = {}): Uint8Array {
  const prefix = options.folder ? `${options.folder.replace(/\/$/, '')}/` : '';
  const level = options.deflate ? 6 : 0;
  const entries: Zippable = {};
  const omit = new Set(options.omit ?? []);
  if (!omit.has('meta.json')) {
    entries[`${prefix}meta.json`] = [new TextEncoder().encode(options.metaJson ?? written.metaJson), { level }];
  }
  for (const [name, bytes] of written.files) {
    if (!omit.has(name)) entries[`${prefix}${name}`] = [bytes, { level }];
  }
  // A fixed time stamp: the same scene zips to the same bytes on every run.
  return zipSync(entries, { mtime: BUNDLE_TIME });
}
