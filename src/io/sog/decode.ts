/**
 * Parser for PlayCanvas SOG scenes into a SplatCloud with activations
 * applied: meta.json first, then its images, read through a callback (files
 * dropped beside it, fetched beside its URL, or entries of a .sog bundle:
 * bundle.ts). DOM-free: runs in a module Web Worker and in Node.
 *
 * Coordinates are those of the PLY the scene was made from (writers store
 * PLY-space numbers), so no axes are converted here.
 *
 * What a scene may cost follows from meta.json, which is read first and is
 * small (SOG_META_MAX_BYTES): its count is checked against the load limits
 * before any image is read, each image against that count (images.ts), and
 * the cloud is allocated only once every image has decoded.
 */
import { ANTIALIASED_FILTER } from '../../scene/anti-aliasing';
import { allocateSplatCloud, computeBounds, shCoefficients, type ShDegree, type SplatCloud } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import { checkSplatCount, DEFAULT_LOAD_LIMITS, type LoadLimits } from '../load-limits';
import type { DecodedWebp } from '../webp-decode';
import {
  decodeColours, decodePalette, decodePositions, decodeRotations, decodeScales, decodeSh, paletteShape, type Palette,
} from './attributes';
import { imageBound, loadImage, MAX_CENTROID_PIXELS, perSplatCheck, perSplatPixels, type BoundedReader } from './images';
import { parseSogMeta, type SogLayout } from './meta';

export interface ParseSogOptions {
  /** Called with the fraction done, 0..1, as images are read and decoded. */
  onProgress?: (fraction: number) => void;
  /** What the scene may cost (default DEFAULT_LOAD_LIMITS): the count and every image are checked against it. */
  limits?: LoadLimits;
  /**
   * Room for the bytes it will hold (layoutDecodedBytes), shared with other
   * scenes decoding at once (decode-room.ts): taken once the count is
   * checked, before any image is read, and given back when it is done.
   */
  room?: (bytes: number) => Promise<() => void>;
}

/**
 * Reads a file meta.json names. `maxBytes` is the most the file may hold:
 * a reader that can tell a file is larger should refuse it (throw) or stop
 * reading past the bound; parseSog refuses anything longer it returns.
 */
export type SogEntryReader = (name: string, maxBytes: number) => Promise<Uint8Array>;

/**
 * The most bytes decoding a scene of `count` splats of SH degree
 * `shDegree` holds at once: every image decoded (RGBA, each per-splat one
 * of at most perSplatPixels(count) pixels; the SH centroids and their
 * palette) alive until the cloud's arrays are filled. The WebP decoder's
 * own memory and one image's compressed bytes at a time come on top.
 */
export function sogDecodedBytes(count: number, shDegree: ShDegree): number {
  // means_l, means_u, quats, scales, sh0; and the SH labels.
  const images = shDegree > 0 ? 6 : 5;
  // The centroids' pixels, and their palette of up to 3 floats a pixel.
  const palette = shDegree > 0 ? MAX_CENTROID_PIXELS * (4 + 3 * 4) : 0;
  const cloudBytes = 4 * (3 + 3 + 4 + 1 + 3 + 3 * shCoefficients(shDegree));
  return images * perSplatPixels(count) * 4 + palette + count * cloudBytes;
}

/** The SH degree of the scene `layout` describes: the one meta.json states, else the most its palette may have. */
export function layoutShDegree(layout: SogLayout): ShDegree {
  const bands = layout.shN?.bands;
  return !layout.shN ? 0 : bands === 1 || bands === 2 || bands === 3 ? bands : 3;
}

/** sogDecodedBytes of the scene `layout` describes (the SH degree its palette may have where meta.json does not say). */
export function layoutDecodedBytes(layout: SogLayout): number {
  return sogDecodedBytes(layout.count, layoutShDegree(layout));
}

/** Decodes a scene whose meta.json is parsed, reading its images through `readEntry`. */
export async function decodeSog(layout: SogLayout, readEntry: BoundedReader, options: ParseSogOptions): Promise<SplatCloud> {
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  const { count } = layout;
  // Before any image is read: the degree is the one meta.json states (version 2), else 0 until the palette shows it.
  const bands = layout.shN?.bands;
  const statedDegree: ShDegree = bands === 1 || bands === 2 || bands === 3 ? bands : 0;
  checkSplatCount(count, statedDegree, limits, "meta.json's count declares");
  const giveBack = options.room ? await options.room(layoutDecodedBytes(layout)) : null;
  try {
    return await decodeImages(layout, readEntry, options, limits);
  } finally {
    giveBack?.();
  }
}

/** decodeSog once its count is checked. */
async function decodeImages(layout: SogLayout, readEntry: BoundedReader, options: ParseSogOptions, limits: LoadLimits): Promise<SplatCloud> {
  const { count } = layout;
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
  return decodeSog(parseSogMeta(metaJson), (name, bound) => readEntry(name, bound.maxBytes), options);
}

// Zip entries are refused when their stated size could not come from their
