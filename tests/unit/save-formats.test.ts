/**
 * Saving scenes: each writable format's round trip, load → save → load,
 * gives the splats back within what the format keeps (INRIA PLY: the same
 * floats; .splat: 8-bit colour, opacity and rotation; SPZ: its fixed
 * point), on the real scenes and on synthetic ones with every SH degree;
 * the format list names the writers; a saved scene's name.
 */
import { describe, expect, test } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { parsePlyHeader } from '../../src/io/ply/header';
import { parseSpz } from '../../src/io/spz/parse';
import { readSpzHeader } from '../../src/io/spz/layout';
import { formatForOutput, savedSceneName, writableFormat, WRITABLE_FORMATS } from '../../src/io/formats/save-formats';
import { inriaPlyProperties, writeInriaPly } from '../../src/io/writers/inria-ply';
import { writeSplat } from '../../src/io/writers/splat';
import { spzFractionalBits, writeSpz } from '../../src/io/writers/spz';
import { ANTIALIASED_FILTER, MIP_FILTER } from '../../src/scene/anti-aliasing';
import { computeBounds, SH_C0, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { expectSameCloud } from '../support/clouds';
import { realScene } from '../support/real-scenes';
import { inriaPly } from '../support/splat-files';
import { writeSplatPly } from '../support/ply-writer';

const REAL = [
  'inria_kacytran_iter7000_9k_sh3.ply', 'inria_karangkidul_150k_sh3_decoded.ply',
  'playcanvas_biker.compressed.ply', 'playcanvas_biker_v4.spz', 'justdealman_model.splat',
];
const PLY_SOURCES = REAL.filter((name) => name.startsWith('inria_'));

/** A synthetic INRIA PLY of every SH degree, decoded: raw values as trainers write them, quaternions not unit. */
const synthetic = (shDegree: ShDegree): Promise<SplatCloud> => loadSplatFile(inriaPly({ count: 500, shDegree, seed: 40 + shDegree }), 'synthetic.ply');
const DEGREES: ShDegree[] = [0, 1, 2, 3];

/**
 * The largest |f(actual) - f(expected)| over the values of splat i's
 * `width` floats, with where it is: quantisation errors, named in a failure.
 */
function largestError(actual: Float32Array, expected: Float32Array, f: (v: number, at: number) => number = (v) => v): { error: number; at: number } {
  expect(actual.length).toBe(expected.length);
  let error = 0, at = -1;
  for (let i = 0; i < actual.length; i++) {
    const e = Math.abs(f(actual[i]!, i) - f(expected[i]!, i));
    if (!(e <= error)) [error, at] = [e, i];
  }
  return { error, at };
}

function expectWithin(name: string, actual: Float32Array, expected: Float32Array, tolerance: number, f?: (v: number, at: number) => number): void {
  const { error, at } = largestError(actual, expected, f);
  expect(error, `${name}: largest error ${error} at float ${at} (${actual[at]} for ${expected[at]})`).toBeLessThanOrEqual(tolerance);
}

describe('INRIA PLY', () => {
  test.each(PLY_SOURCES)('%s: saved and loaded again, the same floats', async (name) => {
    const cloud = await realScene(name);
    const bytes = writeInriaPly(cloud);
    expectSameCloud(await loadSplatFile(bytes, 'saved.ply'), cloud);
    // The header lists INRIA's properties in their order, all float, binary little endian.
    const header = parsePlyHeader(bytes);
    expect(header.format).toBe('binary_little_endian');
    const vertex = header.elements[0]!;
    expect(vertex.properties.map((p) => p.name)).toEqual(inriaPlyProperties(cloud.shDegree));
    expect(vertex.properties.every((p) => p.kind === 'scalar' && p.type === 'float32')).toBe(true);
    expect(bytes.length).toBe(header.headerLength + cloud.count * vertex.rowSize!);
  });

  test.each(DEGREES)('a synthetic scene of SH degree %i: the same floats, SH channel-major in the file', async (degree) => {
    const cloud = await synthetic(degree);
    const bytes = writeInriaPly(cloud);
    expectSameCloud(await loadSplatFile(bytes, 'saved.ply'), cloud);
    if (degree === 0) return;
    // f_rest_1 of splat 0 is red's second coefficient: the cloud's sh[(0·K + 1)·3 + 0].
    const K = (degree + 1) ** 2 - 1;
    const header = parsePlyHeader(bytes);
    const at = header.headerLength + inriaPlyProperties(degree).indexOf('f_rest_1') * 4;
    expect(new DataView(bytes.buffer).getFloat32(at, true)).toBe(cloud.sh[3]);
    const blueFirst = header.headerLength + inriaPlyProperties(degree).indexOf(`f_rest_${2 * K}`) * 4;
    expect(new DataView(bytes.buffer).getFloat32(blueFirst, true)).toBe(cloud.sh[2]);
  });

  test.each(REAL.filter((name) => !PLY_SOURCES.includes(name)))('%s (quantised elsewhere): saved as PLY, within a float32 step', async (name) => {
    const cloud = await realScene(name);
    const again = await loadSplatFile(writeInriaPly(cloud), 'saved.ply');
    for (const key of ['positions', 'dc', 'sh'] as const) expectWithin(key, again[key], cloud[key], 0);
    // Relative: half a float32 step of a log-scale below -8 is one of 4.8e-7 of the scale, with expForFloat32's own step.
    expectWithin('scales', again.scales, cloud.scales, 1e-6, (v, at) => v / cloud.scales[at]!);
    expectWithin('opacities', again.opacities, cloud.opacities, 1e-6, (v, at) => v / Math.max(cloud.opacities[at]!, 1e-3));
    expectWithin('rotations', again.rotations, cloud.rotations, 2e-7);
  });

  test('a Mip-Splatting scene keeps its filter (a filter_3D of 0 after the folded scales), its values within a float32 step', async () => {
    const plain = await synthetic(1);
    const filter3D = new Float32Array(plain.count).fill(0.01);
    const mip = await loadSplatFile(writeSplatPly(plain, { filter3D }), 'mip.ply');
    expect(mip.antiAliasing?.filter).toEqual(MIP_FILTER);
    const bytes = writeInriaPly(mip);
    expect(parsePlyHeader(bytes).elements[0]!.properties.at(-1)!.name).toBe('filter_3D');
    const again = await loadSplatFile(bytes, 'saved.ply');
    expect(again.antiAliasing?.filter).toEqual(MIP_FILTER);
    // The folded scales, sqrt(s² + f²), are not all exponentials of a float32: the nearest one is.
    for (const key of ['positions', 'rotations', 'dc', 'sh'] as const) expectWithin(key, again[key], mip[key], 0);
    expectWithin('scales', again.scales, mip.scales, 1e-6, (v, at) => v / mip.scales[at]!);
    expectWithin('opacities', again.opacities, mip.opacities, 1e-6, (v, at) => v / mip.opacities[at]!);
  });

  test('opacities of 0 and 1 and scales of 0 are written finite, and read back as they were', async () => {
    const cloud = await synthetic(0);
    cloud.opacities.set([0, 1, 1e-30, 1 - 2 ** -24], 0);
    cloud.scales.set([0, 1e-40], 0);
    const bytes = writeInriaPly(cloud);
    const floats = new DataView(bytes.buffer, parsePlyHeader(bytes).headerLength);
    for (let at = 0; at < floats.byteLength; at += 4) expect(Number.isFinite(floats.getFloat32(at, true))).toBe(true);
    const again = await loadSplatFile(bytes, 'saved.ply');
    expect(Array.from(again.opacities.subarray(0, 4))).toEqual(Array.from(cloud.opacities.subarray(0, 4)));
    expect(Array.from(again.scales.subarray(0, 2))).toEqual(Array.from(cloud.scales.subarray(0, 2)));
  });
});

/** The base colour a .splat keeps: 0.5 + SH_C0 · dc, clamped to 0..1. */
const baseColour = (dc: number): number => Math.min(1, Math.max(0, 0.5 + SH_C0 * dc));

describe('.splat', () => {
  test.each([...REAL, 'synthetic SH 3'])('%s: positions and scales exact, colour, opacity and rotation to 8 bits, no SH', async (name) => {
    const cloud = name.startsWith('synthetic') ? await synthetic(3) : await realScene(name);
    const bytes = writeSplat(cloud);
    expect(bytes.length).toBe(32 * cloud.count);
    const again = await loadSplatFile(bytes, 'saved.splat');
    expect({ count: again.count, shDegree: again.shDegree, bounds: again.bounds }).toEqual({ count: cloud.count, shDegree: 0, bounds: cloud.bounds });
    expectWithin('positions', again.positions, cloud.positions, 0);
    expectWithin('scales', again.scales, cloud.scales, 0);
    // Half a step of 1/255, and float32's rounding of the decoded value.
    expectWithin('colours', again.dc, cloud.dc, 0.5 / 255 + 1e-6, baseColour);
    expectWithin('opacities', again.opacities, cloud.opacities, 0.5 / 255 + 1e-6);
    // Half a step of 1/128 per component, then normalised: at most about 1/128 apart.
    expectWithin('rotations', again.rotations, cloud.rotations, 1 / 128);
  });
});

/** q and -q are one rotation: the SPZ writer makes the largest component positive. */
function alignedRotations(actual: Float32Array, expected: Float32Array): Float32Array {
  const out = Float32Array.from(actual);
  for (let i = 0; i < out.length; i += 4) {
    let dot = 0;
    for (let c = 0; c < 4; c++) dot += out[i + c]! * expected[i + c]!;
    if (dot < 0) for (let c = 0; c < 4; c++) out[i + c] = -out[i + c]!;
  }
  return out;
}

describe('SPZ', () => {
  test.each([...REAL, 'synthetic SH 1', 'synthetic SH 2', 'synthetic SH 3'])('%s: within its fixed point, SH kept', async (name) => {
    const cloud = name.startsWith('synthetic') ? await synthetic(Number(name.at(-1)) as ShDegree) : await realScene(name);
    const bytes = writeSpz(cloud);
    const header = readSpzHeader(new Uint8Array(gunzipSync(bytes)));
    expect(header).toMatchObject({ version: 3, count: cloud.count, shDegree: cloud.shDegree, fractionalBits: spzFractionalBits(cloud) });
    const again = await loadSplatFile(bytes, 'saved.spz');
    expect({ count: again.count, shDegree: again.shDegree }).toEqual({ count: cloud.count, shDegree: cloud.shDegree });
    expectWithin('positions', again.positions, cloud.positions, 0.5 / 2 ** header.fractionalBits + 1e-7 * Math.max(...cloud.bounds.max.map(Math.abs), ...cloud.bounds.min.map(Math.abs)));
    expectWithin('opacities', again.opacities, cloud.opacities, 0.5 / 255 + 1e-6);
    // dc in steps of 1/(255 · 0.15), within ±0.5/0.15.
    const dcRange = (v: number) => Math.min(0.5 / 0.15, Math.max(-0.5 / 0.15, v));
    expectWithin('dc', again.dc, cloud.dc, 0.5 / (255 * 0.15) + 1e-6, dcRange);
    // log-scales in steps of 1/16 from -10 to 5.9375.
    const logScale = (v: number) => Math.min(5.9375, Math.max(-10, Math.log(v)));
    expectWithin('log-scales', again.scales, cloud.scales, 0.5 / 16 + 1e-6, logScale);
    // Smallest three: 9 bits of sqrt(1/2) per component, then normalised.
    expectWithin('rotations', alignedRotations(again.rotations, cloud.rotations), cloud.rotations, 2.5e-3);
    // SH in steps of 1/128 within ±127/128.
    const shRange = (v: number) => Math.min(127 / 128, Math.max(-127 / 128, v));
    expectWithin('sh', again.sh, cloud.sh, 0.5 / 128 + 1e-6, shRange);
  });

  test("is written in SPZ's own axes: the reader's conversion undone", async () => {
    const cloud = await synthetic(3);
    const rub = await parseSpz(writeSpz(cloud), { coordinates: 'rub' });
    const flipped = Float32Array.from(cloud.positions, (v, i) => (i % 3 === 0 ? v : -v));
    expectWithin('positions in RUB', rub.positions, flipped, 0.5 / 4096 + 1e-6);
    // The quaternion's y and z change sign with the axes.
    const q = Float32Array.from(cloud.rotations, (v, i) => (i % 4 >= 2 ? -v : v));
    expectWithin('rotations in RUB', alignedRotations(rub.rotations, q), q, 2.5e-3);
    // Degree 1 (its basis functions in the order y, z, x): the y and z coefficients change sign, x's keeps it.
    const K = 15;
    const signs = [-1, -1, 1];
    const sh = Float32Array.from(cloud.sh, (v, at) => {
      const k = Math.floor(at / 3) % K;
      return k < 3 ? signs[k]! * v : v;
    });
    const firstBand = (v: number, at: number) => (Math.floor(at / 3) % K < 3 ? Math.min(127 / 128, Math.max(-127 / 128, v)) : 0);
    expectWithin('degree-1 SH in RUB', rub.sh, sh, 0.5 / 128 + 1e-6, firstBand);
  });

  test('an antialiased scene keeps its flag; a far-flung one gets fewer fractional bits instead of being clipped', async () => {
    const cloud = await synthetic(0);
    cloud.antiAliasing = { filter: { ...ANTIALIASED_FILTER }, source: 'test' };
    expect((await loadSplatFile(writeSpz(cloud), 'aa.spz')).antiAliasing?.filter).toEqual(ANTIALIASED_FILTER);
    cloud.positions[0] = 5000;
    cloud.bounds = computeBounds(cloud.positions, cloud.count);
    expect(spzFractionalBits(cloud)).toBe(10);
    const again = await loadSplatFile(writeSpz(cloud), 'far.spz');
    expect(Math.abs(again.positions[0]! - 5000)).toBeLessThanOrEqual(0.5 / 1024);
  });

  test('the same scene gives the same bytes', async () => {
    const cloud = await realScene('playcanvas_biker_v4.spz');
    expect(Buffer.from(writeSpz(cloud)).equals(Buffer.from(writeSpz(cloud)))).toBe(true);
  });
});

describe('the formats list', () => {
  test('names the writers, in its order, and what each keeps', () => {
    expect(WRITABLE_FORMATS.map((f) => f.id)).toEqual(['ply', 'splat', 'spz', 'glb']);
    for (const format of WRITABLE_FORMATS) expect(format.writer.keeps.length).toBeGreaterThan(10);
  });

  test('an output name chooses its format by extension; another extension is refused, naming those there are', () => {
    expect(formatForOutput('out/scene.PLY').id).toBe('ply');
    expect(formatForOutput('C:\\a\\b.splat').id).toBe('splat');
    expect(formatForOutput('b.spz').id).toBe('spz');
    expect(formatForOutput('b.GLB').id).toBe('glb');
    expect(() => formatForOutput('b.gltf')).toThrow(/ends in "\.gltf"/);
    expect(() => formatForOutput('b.ksplat')).toThrow(/ends in "\.ksplat": a scene can be saved as \.ply \.splat \.spz \.glb/);
    expect(() => formatForOutput('scene')).toThrow(/has no extension/);
  });

  test('a saved scene is named after the scene, with the format\'s extension', () => {
    expect(savedSceneName('garden.ply', writableFormat('spz'))).toBe('garden.spz');
    expect(savedSceneName('garden.gltf', writableFormat('glb'))).toBe('garden.glb');
    expect(savedSceneName('https://host/a/my%20bike.spz?v=2', writableFormat('ply'))).toBe('my bike.ply');
    expect(savedSceneName('meta.json', writableFormat('splat'))).toBe('meta.splat');
    expect(savedSceneName('', writableFormat('ply'))).toBe('scene.ply');
  });

  test('the written format round trips through its own description', async () => {
    const cloud = await synthetic(2);
    const again = await loadSplatFile(await writableFormat('ply').writer.write(cloud), 'x.ply');
    expectSameCloud(again, cloud);
  });
});
