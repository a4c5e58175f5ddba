/**
 * Every source format × every writer: a small synthetic scene of SH degree
 * 3, written in each format the viewer reads (antialiased SPZ, SOG and PLY,
 * and a Mip-Splatting PLY, among them), read, saved by each writer and read
 * again, renders as the source did on the CPU reference rasterizer, with
 * the filter each file says to draw it with, at or above 50 dB, unless
 * saveLosses names what the writer cannot hold (SH bands, a filter, values
 * past SPZ's range); and only what it names is lost: the filter is dropped
 * only where named, the SH bands likewise.
 */
import { describe, expect, test } from 'vitest';
import { mat4 } from 'gl-matrix';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { WRITABLE_FORMATS, type WritableFormat } from '../../src/io/formats/save-formats';
import { saveLosses } from '../../src/io/formats/save-losses';
import { writeInriaPly } from '../../src/io/writers/inria-ply';
import { writeSpz } from '../../src/io/writers/spz';
import { writeGlb } from '../../src/io/writers/glb';
import { renderReference } from '../../src/render/reference-rasterizer';
import { psnr, toRgba8 } from '../../cli/picture-compare';
import { ANTIALIASED_FILTER, CLASSIC_FILTER, screenFilterFor, type ScreenFilter } from '../../src/scene/anti-aliasing';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { compressedPly, inriaPly, splatFile } from '../support/splat-files';
import { writeSplatPly } from '../support/ply-writer';
import { writeKsplat } from '../support/ksplat-writer';
import { bundleSog, writeSog } from '../support/sog-writer';
import { glbAsGltf } from '../support/gltf-files';

const COUNT = 300;
const SIZE = 64;
const antialiased = { filter: { ...ANTIALIASED_FILTER }, source: 'test' };

const base = (): Promise<SplatCloud> => loadSplatFile(inriaPly({ count: COUNT, shDegree: 3, seed: 42 }), 'base.ply');
const withFilter = async (cloud: Promise<SplatCloud>): Promise<SplatCloud> => ({ ...(await cloud), antiAliasing: antialiased });

/** Each source: its file's name (the extension picks the reader) and bytes. */
const SOURCES: Record<string, () => Promise<[string, Uint8Array]>> = {
  'INRIA PLY': async () => ['s.ply', inriaPly({ count: COUNT, shDegree: 3, seed: 42 })],
  'INRIA PLY, SH 0': async () => ['s.ply', inriaPly({ count: COUNT, shDegree: 0, seed: 44 })],
  'Mip-Splatting PLY': async () => ['s.ply', writeSplatPly(await base(), { filter3D: new Float32Array(COUNT).fill(0.02) })],
  'antialiased PLY': async () => ['s.ply', writeInriaPly(await withFilter(base()))],
  'compressed PLY': async () => ['s.compressed.ply', compressedPly({ count: COUNT, shDegree: 3, seed: 43 })],
  '.splat': async () => ['s.splat', splatFile(COUNT)],
  SPZ: async () => ['s.spz', writeSpz(await base())],
  'antialiased SPZ': async () => ['s.spz', writeSpz(await withFilter(base()))],
  KSPLAT: async () => ['s.ksplat', writeKsplat(await base(), { level: 1 }).bytes],
  SOG: async () => ['s.sog', bundleSog(await writeSog(await base()))],
  'antialiased SOG': async () => {
    const written = await writeSog(await base());
    return ['s.sog', bundleSog(written, { metaJson: JSON.stringify({ ...written.meta, antialias: true }) })];
  },
  GLB: async () => ['s.glb', writeGlb(await base())],
  glTF: async () => ['s.gltf', glbAsGltf(writeGlb(await base()))],
};

/** The source's scene from 2.5 of its extents away, 64 × 64, black behind, SH 3, with the filter its file says. */
function render(cloud: SplatCloud, framing: SplatCloud): Uint8Array {
  const { min, max } = framing.bounds;
  const centre = [0, 1, 2].map((a) => (min[a]! + max[a]!) / 2) as [number, number, number];
  const extent = Math.max(...[0, 1, 2].map((a) => max[a]! - min[a]!));
  const eye: [number, number, number] = [centre[0], centre[1], centre[2] - 1.6 * extent];
  const view = mat4.lookAt(mat4.create(), eye, centre, [0, -1, 0]);
  const screenFilter = screenFilterFor('auto', cloud.antiAliasing);
  const picture = renderReference(cloud, { view, eye, fovY: Math.PI / 3, width: SIZE, height: SIZE, shDegree: 3, background: [0, 0, 0], screenFilter });
  return toRgba8(picture.rgb);
}

const filterOf = (cloud: SplatCloud): ScreenFilter => cloud.antiAliasing?.filter ?? CLASSIC_FILTER;

describe.each(Object.keys(SOURCES))('%s', (sourceName) => {
  test.each(WRITABLE_FORMATS.map((f) => [f.id, f] as const))('saved as %s', async (_, format: WritableFormat) => {
    const [name, bytes] = await SOURCES[sourceName]!();
    const original = await loadSplatFile(bytes, name);
    const losses = saveLosses(original, format);
    const again = await loadSplatFile(await format.writer.write(original), `again${format.extensions[0]}`);
    const db = psnr(render(again, original), render(original, original));
    const filterNamed = losses.some((l) => l.includes('anti-aliasing'));
    if (filterNamed) expect(filterOf(again)).toEqual(CLASSIC_FILTER);
    else expect(filterOf(again)).toEqual(filterOf(original));
    const shNamed = losses.some((l) => l.includes('SH band'));
    expect(shNamed).toBe(original.shDegree > again.shDegree);
    if (losses.length === 0) expect(db).toBeGreaterThanOrEqual(50);
  });
});
