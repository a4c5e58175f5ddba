/**
 * What the writers refuse and what they write in place of values a format
 * has no word for: a NaN or an infinity is refused by every writer, naming
 * the value and the splat, as is a position past SPZ's 24 bits; a negative
 * scale (a .splat may hold one) is written as the magnitude it is drawn
 * at, a zero one as one that reads back 0 (PLY) or SPZ's smallest; an
 * antialiased scene's PLY carries the flag as a header comment, its GLB in
 * the extension's extras. And what
 * saveLosses names, and does not, for each writer.
 */
import { describe, expect, test } from 'vitest';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { parsePlyHeader } from '../../src/io/ply/header';
import { writableFormat, WRITABLE_FORMATS } from '../../src/io/formats/save-formats';
import { saveLosses, SPZ_LARGEST_SCALE } from '../../src/io/formats/save-losses';
import { writeInriaPly } from '../../src/io/writers/inria-ply';
import { writeSpz } from '../../src/io/writers/spz';
import { writeGlb } from '../../src/io/writers/glb';
import { ANTIALIASED_FILTER, MIP_FILTER } from '../../src/scene/anti-aliasing';
import { computeBounds, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { inriaPly } from '../support/splat-files';

const scene = (shDegree: ShDegree = 0): Promise<SplatCloud> => loadSplatFile(inriaPly({ count: 20, shDegree, seed: 9 }), 's.ply');

describe('refused by name', () => {
  test.each(WRITABLE_FORMATS.map((f) => [f.label, f] as const))('%s: a NaN position, an infinite opacity', async (label, format) => {
    const cloud = await scene();
    cloud.positions[3 * 7 + 1] = NaN;
    await expect(format.writer.write(cloud)).rejects.toThrow(new RegExp(`^Cannot save as ${label.replace('.', '\\.')}: position of splat 7 is NaN`));
    cloud.positions[3 * 7 + 1] = 0;
    cloud.opacities[3] = Infinity;
    await expect(format.writer.write(cloud)).rejects.toThrow(/opacity of splat 3 is Infinity/);
  });

  test('SPZ: a position past its 24 bits at no fractional bits', async () => {
    const cloud = await scene();
    cloud.positions[3 * 4 + 2] = -(2 ** 24);
    cloud.bounds = computeBounds(cloud.positions, cloud.count);
    expect(() => writeSpz(cloud)).toThrow("Cannot save as SPZ: the z of splat 4 is -16777216, beyond the ±8,388,607 units SPZ's positions reach");
  });
});

describe('values written as they are drawn', () => {
  test('a negative scale as its magnitude (PLY exactly, SPZ to its step), a zero one as 0 (PLY) or e^-10 (SPZ)', async () => {
    const cloud = await scene();
    cloud.scales.set([-0.05, 0, 0.02], 0);
    const ply = await loadSplatFile(writeInriaPly(cloud), 'x.ply');
    // Within a float32 step: not every float32 is the exponential of one.
    expect(ply.scales[0]! / 0.05).toBeCloseTo(1, 6);
    expect(ply.scales[1]).toBe(0);
    const spz = await loadSplatFile(writeSpz(cloud), 'x.spz');
    expect(Math.abs(Math.log(spz.scales[0]!) - Math.log(0.05))).toBeLessThanOrEqual(0.5 / 16 + 1e-6);
    expect(spz.scales[1]).toBeCloseTo(Math.exp(-10), 9);
  });

  test("an antialiased scene's GLB says so in the extension's extras, which the reader reads as the flag", async () => {
    const cloud = { ...(await scene()), antiAliasing: { filter: { ...ANTIALIASED_FILTER }, source: 'SPZ flag "antialiased"' } };
    const bytes = writeGlb(cloud);
    const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + new DataView(bytes.buffer).getUint32(12, true))));
    expect(json.meshes[0].primitives[0].extensions.KHR_gaussian_splatting.extras).toEqual({ antialiased: true });
    expect((await loadSplatFile(bytes, 'x.glb')).antiAliasing).toEqual({ filter: ANTIALIASED_FILTER, source: 'glTF extras "antialiased"' });
    expect((await loadSplatFile(writeGlb(await scene()), 'x.glb')).antiAliasing).toBeUndefined();
  });

  test("an antialiased scene's PLY says so in a header comment, which the reader reads as the flag", async () => {
    const cloud = { ...(await scene()), antiAliasing: { filter: { ...ANTIALIASED_FILTER }, source: 'SPZ flag "antialiased"' } };
    const bytes = writeInriaPly(cloud);
    expect(parsePlyHeader(bytes).comments).toEqual(['antialiased']);
    expect((await loadSplatFile(bytes, 'x.ply')).antiAliasing).toEqual({ filter: ANTIALIASED_FILTER, source: 'PLY comment "antialiased"' });
    // A scene without a filter gets no comment.
    expect(parsePlyHeader(writeInriaPly(await scene())).comments).toEqual([]);
  });
});

describe('saveLosses', () => {
  test('names SH bands past the format, and nothing where the format keeps them', async () => {
    const cloud = await scene(3);
    expect(saveLosses(cloud, writableFormat('splat'))).toEqual(['its view-dependent colour, SH bands 1 to 3: .splat keeps SH up to degree 0']);
    for (const id of ['ply', 'spz', 'glb']) expect(saveLosses(cloud, writableFormat(id))).toEqual([]);
  });

  test('names a filter only where the format cannot record it', async () => {
    const aa = { ...(await scene()), antiAliasing: { filter: { ...ANTIALIASED_FILTER }, source: 'SPZ flag "antialiased"' } };
    const mip = { ...(await scene()), antiAliasing: { filter: { ...MIP_FILTER }, source: 'PLY property "filter_3D" (Mip-Splatting)' } };
    const named = (cloud: SplatCloud) => WRITABLE_FORMATS.filter((f) => saveLosses(cloud, f).some((l) => l.startsWith('its anti-aliasing'))).map((f) => f.id);
    expect(named(aa)).toEqual(['splat']);
    expect(named(mip)).toEqual(['splat', 'spz', 'glb']);
    expect(saveLosses(mip, writableFormat('glb'))[0]).toBe(
      'its anti-aliasing (0.1 px² + opacity compensation, from PLY property "filter_3D" (Mip-Splatting)): GLB cannot record it, so the file is drawn with the classic filter (0.3 px²)',
    );
  });

  test("names SPZ's clamps of scales and SH coefficients, counting the splats", async () => {
    const cloud = await scene(1);
    cloud.scales[3 * 2] = SPZ_LARGEST_SCALE * 1.01;
    cloud.sh.fill(0);
    cloud.sh[9 * 5 + 4] = -1.5;
    expect(saveLosses(cloud, writableFormat('spz'))).toEqual([
      'the size of 1 splat with a scale above 379, the most SPZ stores: written at 379',
      'part of the view-dependent colour of 1 splat with an SH coefficient beyond ±0.9921875, the most SPZ stores: clamped to it',
    ]);
    expect(saveLosses(cloud, writableFormat('ply'))).toEqual([]);
  });
});
