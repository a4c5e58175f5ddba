import { readFileSync } from 'node:fs';
import { ANTIALIASED_FILTER } from '../../src/scene/anti-aliasing';
import { gzipSync } from 'node:zlib';
import { mat4 } from 'gl-matrix';
import { beforeAll, describe, expect, it, test } from 'vitest';
import { detectSplatFormat, loadSplatFile } from '../../src/io/parse-splat-file';
import { SplatFormatError } from '../../src/io/ply/parse';
import { isSpz } from '../../src/io/spz/layout';
import { parseSpz } from '../../src/io/spz/parse';
import { renderReference, type ReferenceView } from '../../src/render/reference-rasterizer';
import { SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';
import { concat, gzip, rng, zstdStored } from '../support/splat-files';
import { scenePath } from '../shared-scenes';

describe('parseSpz on the PlayCanvas biker (version 4)', () => {
  let spzBytes: Uint8Array;
  let spz: SplatCloud;
  let ply: SplatCloud;
  beforeAll(async () => {
    spzBytes = readFileSync(scenePath('playcanvas_biker_v4.spz'));
    spz = await parseSpz(spzBytes);
    ply = await loadSplatFile(readFileSync(scenePath('playcanvas_biker.compressed.ply')), 'biker.ply');
  });

  it('is recognised by its magic', () => {
    expect(isSpz(spzBytes)).toBe(true);
  });

  it('reports a zstd stream that does not decompress as a format error', async () => {
    const failing = () => {
      throw new Error('corrupt frame');
    };
    await expect(parseSpz(spzBytes, { zstdDecompress: failing })).rejects.toThrow(/corrupt frame|zstd/);
  });

  it('decodes 152,746 splats of SH degree 0', () => {
    expect(spz.count).toBe(152746);
    expect(spz.shDegree).toBe(0);
    expect(ply.count).toBe(152746);
  });

  it('holds the same splats as the compressed PLY, in the same order', () => {
    const size = Math.max(...[0, 1, 2].map((a) => ply.bounds.max[a]! - ply.bounds.min[a]!));
    let maxPos = 0, maxColour = 0, maxOpacity = 0, maxScale = 0, maxQuat = 0;
    let bigScale = 0;
    for (let i = 0; i < spz.count; i++) {
      for (let a = 0; a < 3; a++) {
        maxPos = Math.max(maxPos, Math.abs(spz.positions[3 * i + a]! - ply.positions[3 * i + a]!));
        const ca = Math.min(1, Math.max(0, 0.5 + SH_C0 * spz.dc[3 * i + a]!));
        const cb = Math.min(1, Math.max(0, 0.5 + SH_C0 * ply.dc[3 * i + a]!));
        maxColour = Math.max(maxColour, Math.abs(ca - cb));
        const rel = Math.abs(Math.log(spz.scales[3 * i + a]! / ply.scales[3 * i + a]!));
        // SPZ clamps log scales to [-10, 5.9]; compare only inside that range.
        const ls = Math.log(ply.scales[3 * i + a]!);
        if (ls > -9.9 && ls < 5.8) maxScale = Math.max(maxScale, rel); else bigScale++;
      }
      maxOpacity = Math.max(maxOpacity, Math.abs(spz.opacities[i]! - ply.opacities[i]!));
      let dot = 0;
      for (let c = 0; c < 4; c++) dot += spz.rotations[4 * i + c]! * ply.rotations[4 * i + c]!;
      maxQuat = Math.max(maxQuat, 1 - Math.abs(dot));
    }
    expect(maxPos / size).toBeLessThan(1e-3);
    expect(maxColour).toBeLessThan(2.5 / 255);
    expect(maxOpacity).toBeLessThan(2.5 / 255);
    expect(maxScale).toBeLessThan(0.05);
    expect(maxQuat).toBeLessThan(0.01);
  });
});

/** A hand-built SPZ payload (before gzip) of two splats. */
function buildSpz(version: 2 | 3, count = 2): Uint8Array {
  const rotBytes = version === 3 ? 4 : 3;
  const shDim = 3; // degree 1
  const body = 9 * 2 + 2 + 3 * 2 + 3 * 2 + rotBytes * 2 + shDim * 3 * 2;
  const out = new Uint8Array(16 + body);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x5053474e, true);
  view.setUint32(4, version, true);
  view.setUint32(8, count, true);
  out[12] = 1; // SH degree
  out[13] = 12; // fractional bits
  let at = 16;
  const fixed = (v: number): void => {
    const f = Math.round(v * 4096) & 0xffffff;
    out[at++] = f & 0xff; out[at++] = (f >> 8) & 0xff; out[at++] = (f >> 16) & 0xff;
  };
  [1.5, -2.25, 3, -0.5, 0.25, 100].forEach(fixed);
  out[at++] = 255; out[at++] = 51; // alphas
  out.set([127.5 + 0.15 * 255 * 0.2, 255, 0].map(Math.round), at); at += 3; // colours splat 0
  out.set([128, 128, 128], at); at += 3;
  out.set([160, 144, 176], at); at += 3; // scales: log = 0, -1, 1
  out.set([100, 0, 255], at); at += 3;
  if (version === 2) {
    out.set([128, 128, 128], at); at += 3; // ~identity
    out.set([255, 128, 128], at); at += 3; // ~x axis
  } else {
    // splat 0: identity: largest w (index 3), others 0.
    view.setUint32(at, (3 << 30) >>> 0, true); at += 4;
    // splat 1: (x, y, z, w) = (0.5, -0.5, 0.5, 0.5) with largest x (index 0):
    // packed from bit 0 up: w, z, y. 0.5 = sqrt(1/2) * mag / 511 → mag = 361.
    const mag = Math.round(0.5 / Math.SQRT1_2 * 511);
    const w = mag, z = mag, y = mag | (1 << 9);
    view.setUint32(at, ((0 << 30) | (y << 20) | (z << 10) | w) >>> 0, true); at += 4;
  }
  for (let k = 0; k < 18; k++) out[at++] = k === 0 ? 192 : k === 1 ? 64 : 128;
  return out;
}

describe('parseSpz on hand-built files', () => {
  it('decodes a gzip-wrapped version 2 file', async () => {
    const raw = buildSpz(2);
    const gz = new Uint8Array(gzipSync(raw));
    expect(isSpz(gz)).toBe(true);
    const cloud = await parseSpz(gz, { coordinates: 'rub' });
    expect(cloud.count).toBe(2);
    expect(cloud.shDegree).toBe(1);
    expect(Array.from(cloud.positions)).toEqual([1.5, -2.25, 3, -0.5, 0.25, 100]);
    expect(cloud.opacities[0]).toBeCloseTo(1, 6);
    expect(cloud.opacities[1]).toBeCloseTo(0.2, 6);
    expect(cloud.dc[0]).toBeCloseTo(0.2, 1);
    expect(cloud.dc[2]).toBeCloseTo(-0.5 / 0.15, 5);
    expect(cloud.scales[0]).toBeCloseTo(1, 6);
    expect(cloud.scales[1]).toBeCloseTo(Math.exp(-1), 6);
    expect(cloud.scales[2]).toBeCloseTo(Math.exp(1), 6);
    expect(cloud.rotations[0]).toBeCloseTo(1, 4); // w of the identity
    expect(cloud.rotations[5]).toBeCloseTo(1, 2); // x of splat 1
    expect(cloud.sh[0]).toBeCloseTo(0.5, 6);
    expect(cloud.sh[1]).toBeCloseTo(-0.5, 6);
    expect(cloud.sh[2]).toBe(0);
    // The default turns RUB into the PLY convention: y and z negate.
    const rdf = await parseSpz(gz);
    expect(Array.from(rdf.positions)).toEqual([1.5, 2.25, -3, -0.5, -0.25, -100]);
    expect(rdf.sh[0]).toBeCloseTo(-0.5, 6); // the first degree-1 coefficient goes with y
  });

  it('decodes a version 3 file with smallest-three rotations, raw or gzipped', async () => {
    const raw = buildSpz(3);
    for (const bytes of [raw, new Uint8Array(gzipSync(raw))]) {
      const cloud = await parseSpz(bytes, { coordinates: 'rub' });
      expect(Array.from(cloud.rotations.subarray(0, 4))).toEqual([1, 0, 0, 0]);
      const q = Array.from(cloud.rotations.subarray(4, 8));
      [0.5, 0.5, -0.5, 0.5].forEach((v, c) => expect(q[c]).toBeCloseTo(v, 2));
    }
  });

  it('records the anti-aliasing flag (bit 0 of the flags byte), and only when it is set', async () => {
    const plain = await parseSpz(buildSpz(3));
    expect(plain.antiAliasing).toBeUndefined();
    const flagged = buildSpz(3);
    flagged[14] = 1;
    const cloud = await parseSpz(flagged);
    expect(cloud.antiAliasing).toEqual({ filter: ANTIALIASED_FILTER, source: 'SPZ flag "antialiased"' });
    // The splats themselves are the same: the filter is applied when drawing.
    expect(Array.from(cloud.opacities)).toEqual(Array.from(plain.opacities));
  });

  it('rejects a header that claims more splats than the data holds', async () => {
    const gz = new Uint8Array(gzipSync(buildSpz(2, 1000)));
    await expect(parseSpz(gz)).rejects.toThrow(SplatFormatError);
    await expect(parseSpz(gz)).rejects.toThrow(/header says 1000 splats .* but the data holds only \d+ bytes/);
  });

  it('rejects a bad magic, an unsupported version and truncated data', async () => {
    const bad = buildSpz(2);
    bad[0] = 0x41;
    await expect(parseSpz(bad)).rejects.toThrow(/Not an SPZ file/);
    await expect(parseSpz(new Uint8Array(gzipSync(bad)))).rejects.toThrow(/expected magic 'NGSP'/);
    const v9 = buildSpz(2);
    v9[4] = 9;
    await expect(parseSpz(v9)).rejects.toThrow(/Unsupported SPZ version 9/);
    await expect(parseSpz(buildSpz(2).subarray(0, 10))).rejects.toThrow(/truncated/);
    const gz = new Uint8Array(gzipSync(buildSpz(2)));
    await expect(parseSpz(gz.subarray(0, gz.length - 20))).rejects.toThrow(SplatFormatError);
  });
});

describe('the loader entry point', () => {
  it('detects SPZ by its magic and loads it asynchronously', async () => {
    const bytes = readFileSync(scenePath('playcanvas_biker_v4.spz'));
    expect(detectSplatFormat(bytes, 'anything.bin')).toBe('spz');
    const cloud = await loadSplatFile(bytes, 'biker.spz');
    expect(cloud.count).toBe(152746);
  });
});

/** Attribute planes of `count` splats inside a unit ball, large enough to cover pixels, with random rotations and SH of degree 3. */
function frameTestPlanes(count: number): Uint8Array[] {
  const random = rng(29);
  const byte = () => Math.floor(random() * 256);
  const positions = new Uint8Array(count * 9);
  for (let i = 0; i < count * 3; i++) {
    const fixed = Math.round((2 * random() - 1) * 4096) & 0xffffff; // ±1 at 12 fractional bits
    positions.set([fixed & 0xff, (fixed >> 8) & 0xff, fixed >> 16], 3 * i);
  }
  const scales = Uint8Array.from({ length: count * 3 }, () => 112 + Math.floor(random() * 24)); // log scale -3..-1.5
  const alphas = Uint8Array.from({ length: count }, () => 160 + Math.floor(random() * 80));
  const colours = Uint8Array.from({ length: count * 3 }, byte);
  const rotations = Uint8Array.from({ length: count * 4 }, byte);
  const sh = Uint8Array.from({ length: count * 45 }, byte);
  return [positions, alphas, colours, scales, rotations, sh];
}

function spzHeaderBytes(version: 3 | 4, count: number, bytes: number): Uint8Array {
  const header = new Uint8Array(bytes);
  const view = new DataView(header.buffer);
  view.setUint32(0, 0x5053474e, true);
  view.setUint32(4, version, true);
  view.setUint32(8, count, true);
  header[12] = 3;
  header[13] = 12;
  return header;
}

/** The same planes as a gzip-wrapped version 3 file and as a version 4 file of stored zstd streams. */
function frameTestFiles(count: number): { version: number; bytes: Uint8Array }[] {
  const planes = frameTestPlanes(count);
  const v3 = gzip(concat(spzHeaderBytes(3, count, 16), ...planes));
  const frames = planes.map(zstdStored);
  const header = spzHeaderBytes(4, count, 32);
  header[15] = frames.length;
  new DataView(header.buffer).setUint32(16, 32, true);
  const table = new Uint8Array(frames.length * 16);
  const tableView = new DataView(table.buffer);
  frames.forEach((frame, s) => {
    tableView.setBigUint64(s * 16, BigInt(frame.length), true);
    tableView.setBigUint64(s * 16 + 8, BigInt(planes[s]!.length), true);
  });
  return [{ version: 3, bytes: v3 }, { version: 4, bytes: concat(header, table, ...frames) }];
}

describe('SPZ files open in the PLY convention, every version alike', () => {
  const SIZE = 48;
  const turn = ([x, y, z]: number[]): [number, number, number] => [x!, -y!, -z!];
  const view = (eye: [number, number, number], up: [number, number, number], shDegree: number): ReferenceView => ({
    view: mat4.lookAt(mat4.create(), eye, [0, 0, 0], up), eye, fovY: Math.PI / 3, width: SIZE, height: SIZE, shDegree, background: [0, 0, 0],
  });

  test.each(frameTestFiles(80))('version $version: the scene drawn in its RUB frame is the scene drawn in the PLY frame, SH bands included', async ({ bytes }) => {
    const rub = await parseSpz(bytes, { coordinates: 'rub' });
    const rdf = await parseSpz(bytes);
    for (let i = 0; i < rub.count * 3; i++) expect(rdf.positions[i]).toBe(i % 3 === 0 ? rub.positions[i] : -rub.positions[i]!);
    // A camera in the PLY frame, −y up, and the same camera turned into SPZ's frame (y and z negated).
    const eye: [number, number, number] = [1.2, -1.5, -3];
    const inPly = renderReference(rdf, view(eye, [0, -1, 0], 3));
    const inSpz = renderReference(rub, view(turn(eye), turn([0, -1, 0]), 3));
    let largest = 0;
    for (let i = 0; i < inPly.rgb.length; i++) largest = Math.max(largest, Math.abs(inPly.rgb[i]! - inSpz.rgb[i]!));
    expect(largest).toBeLessThan(1e-4);
    // The view-dependent bands matter in this picture: without them it differs.
    const flat = renderReference(rdf, view(eye, [0, -1, 0], 0));
    let shEffect = 0;
    for (let i = 0; i < inPly.rgb.length; i++) shEffect = Math.max(shEffect, Math.abs(inPly.rgb[i]! - flat.rgb[i]!));
    expect(shEffect).toBeGreaterThan(0.05);
  });
});
