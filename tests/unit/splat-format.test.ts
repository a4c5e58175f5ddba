import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { detectSplatFormat, loadSplatFile } from '../../src/io/parse-splat-file';
import { parseSplatFormat } from '../../src/io/splat/parse';
import { SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { expectFormatError, expectFormatRejection } from '../support/format-errors';
import { firstDifference } from '../support/clouds';

const SPLAT_FILE = 'justdealman_model.splat';
const PLY_FILE = 'inria_kacytran_iter7000_9k_sh3.ply';


function readScene(file: string): Uint8Array {
  return readFileSync(scenePath(file));
}


describe('parseSplatFormat on a real .splat file', () => {
  let bytes: Uint8Array;
  let cloud: SplatCloud;
  let view: DataView;

  beforeAll(() => {
    bytes = readScene(SPLAT_FILE);
    view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    cloud = parseSplatFormat(bytes);
  });

  it('reads every splat, degree 0, with arrays of the right sizes', () => {
    expect(bytes.byteLength).toBe(3_729_568);
    expect(cloud.count).toBe(116_549);
    expect(cloud.shDegree).toBe(0);
    expect(cloud.positions.length).toBe(116_549 * 3);
    expect(cloud.scales.length).toBe(116_549 * 3);
    expect(cloud.rotations.length).toBe(116_549 * 4);
    expect(cloud.opacities.length).toBe(116_549);
    expect(cloud.dc.length).toBe(116_549 * 3);
    expect(cloud.sh.length).toBe(0);
  });

  it('matches the raw bytes on sampled rows', () => {
    const rows = [0, 1, 2, 1000, 58_274, 99_999, 116_547, 116_548];
    for (let s = 0; s < 200; s++) rows.push(Math.floor((s * 116_549) / 200));
    for (const i of rows) {
      const b = i * 32;
      for (let a = 0; a < 3; a++) {
        expect(cloud.positions[3 * i + a]).toBe(view.getFloat32(b + 4 * a, true));
        expect(cloud.scales[3 * i + a]).toBe(view.getFloat32(b + 12 + 4 * a, true));
        const rgb = view.getUint8(b + 24 + a) / 255;
        expect(0.5 + SH_C0 * cloud.dc[3 * i + a]!).toBeCloseTo(rgb, 5);
      }
      expect(cloud.opacities[i]).toBeCloseTo(view.getUint8(b + 27) / 255, 6);
      const q = [0, 1, 2, 3].map((k) => (view.getUint8(b + 28 + k) - 128) / 128);
      const norm = Math.hypot(...q);
      for (let k = 0; k < 4; k++) {
        const expected = norm > 0 ? q[k]! / norm : k === 0 ? 1 : 0;
        expect(cloud.rotations[4 * i + k]).toBeCloseTo(expected, 5);
      }
    }
  });

  it('has unit quaternions, opacities in 0..1, positive finite scales and finite bounds', () => {
    let worstNorm = 0;
    for (let i = 0; i < cloud.count; i++) {
      const r = cloud.rotations.subarray(4 * i, 4 * i + 4);
      worstNorm = Math.max(worstNorm, Math.abs(Math.hypot(r[0]!, r[1]!, r[2]!, r[3]!) - 1));
    }
    expect(worstNorm).toBeLessThan(1e-5);
    expect(cloud.opacities.every((o) => o >= 0 && o <= 1)).toBe(true);
    expect(cloud.scales.every((s) => Number.isFinite(s) && s >= 0)).toBe(true);
    for (let a = 0; a < 3; a++) {
      expect(Number.isFinite(cloud.bounds.min[a])).toBe(true);
      expect(cloud.bounds.min[a]).toBeLessThanOrEqual(cloud.bounds.max[a]!);
    }
  });

  it('gives the same cloud through loadSplatFile, from an unaligned view, with progress', async () => {
    const fractions: number[] = [];
    const viaFile = await loadSplatFile(bytes, 'scenes/model.splat', { onProgress: (f) => fractions.push(f) });
    expect(viaFile.count).toBe(cloud.count);
    expect(firstDifference(viaFile.positions, cloud.positions)).toBe(-1);
    expect(fractions.at(-1)).toBe(1);
    for (let j = 1; j < fractions.length; j++) expect(fractions[j]).toBeGreaterThanOrEqual(fractions[j - 1]!);

    const shifted = new Uint8Array(bytes.byteLength + 1);
    shifted.set(bytes, 1);
    const unaligned = parseSplatFormat(shifted.subarray(1));
    for (const key of ['positions', 'scales', 'rotations', 'opacities', 'dc'] as const) {
      expect(firstDifference(unaligned[key], cloud[key]), key).toBe(-1);
    }
  });

  it('is fast', () => {
    const start = performance.now();
    parseSplatFormat(bytes);
    const ms = performance.now() - start;
    console.log(`116k .splat parse: ${ms.toFixed(1)} ms`);
    expect(ms).toBeLessThan(500);
  });
});

describe('synthetic .splat records', () => {
  function record(values: { pos: number[]; scale: number[]; rgba: number[]; rot: number[] }): Uint8Array {
    const out = new Uint8Array(32);
    const v = new DataView(out.buffer);
    values.pos.forEach((x, k) => v.setFloat32(4 * k, x, true));
    values.scale.forEach((x, k) => v.setFloat32(12 + 4 * k, x, true));
    values.rgba.forEach((x, k) => v.setUint8(24 + k, x));
    values.rot.forEach((x, k) => v.setUint8(28 + k, x));
    return out;
  }

  it('decodes colour, opacity and quaternion; a zero quaternion becomes identity', () => {
    const a = record({ pos: [1, -2, 3.5], scale: [0.1, 0.2, 0.3], rgba: [255, 0, 128, 51], rot: [255, 128, 128, 128] });
    const b = record({ pos: [0, 0, 0], scale: [1, 1, 1], rgba: [0, 0, 0, 255], rot: [128, 128, 128, 128] });
    const bytes = new Uint8Array(64);
    bytes.set(a, 0);
    bytes.set(b, 32);
    const cloud = parseSplatFormat(bytes);
    expect(cloud.count).toBe(2);
    expect(Array.from(cloud.positions.subarray(0, 3))).toEqual([1, -2, 3.5]);
    expect(cloud.scales[1]).toBeCloseTo(0.2, 6);
    expect(0.5 + SH_C0 * cloud.dc[0]!).toBeCloseTo(1, 6);
    expect(0.5 + SH_C0 * cloud.dc[1]!).toBeCloseTo(0, 6);
    expect(0.5 + SH_C0 * cloud.dc[2]!).toBeCloseTo(128 / 255, 6);
    expect(cloud.opacities[0]).toBeCloseTo(0.2, 6);
    expect(cloud.opacities[1]).toBe(1);
    expect(Array.from(cloud.rotations)).toEqual([1, 0, 0, 0, 1, 0, 0, 0]);
    expect(cloud.bounds).toEqual({ min: [0, -2, 0], max: [1, 0, 3.5] });
  });
});

describe('bad .splat files', () => {
  it('rejects a truncated file, saying how many bytes are left over', async () => {
    const bytes = readScene(SPLAT_FILE);
    const truncated = bytes.subarray(0, bytes.byteLength - 5);
    expectFormatError(() => parseSplatFormat(truncated), /3729563 bytes/, /not a multiple of the 32-byte/, /27 bytes left over/);
    await expectFormatRejection(loadSplatFile(truncated, 'model.splat'), /27 bytes left over/);
    expectFormatError(() => parseSplatFormat(new Uint8Array(7)), /7 bytes left over/);
  });

  it('rejects an empty file', async () => {
    expectFormatError(() => parseSplatFormat(new Uint8Array(0)), /empty/, /0 splats/);
    await expectFormatRejection(loadSplatFile(new Uint8Array(0), 'empty.splat'), /empty/);
  });
});

describe('detectSplatFormat', () => {
  const text = (s: string): Uint8Array => new TextEncoder().encode(s);

  it('says ply by content, whatever the name', async () => {
    const ply = readScene(PLY_FILE);
    expect(detectSplatFormat(ply)).toBe('ply');
    expect(detectSplatFormat(ply, 'scene.splat')).toBe('ply');
    expect(detectSplatFormat(text('ply\r\nformat ascii 1.0\r\n'), 'x.bin')).toBe('ply');
    // loadSplatFile follows the content too.
    const cloud = await loadSplatFile(ply, 'misnamed.splat');
    expect(cloud.count).toBe(9080);
    expect(cloud.shDegree).toBe(3);
  });

  it('says splat by name', () => {
    const bytes = readScene(SPLAT_FILE);
    expect(detectSplatFormat(bytes, SPLAT_FILE)).toBe('splat');
    expect(detectSplatFormat(bytes, 'C:\\scenes\\Model.SPLAT')).toBe('splat');
    expect(detectSplatFormat(bytes, 'https://example.com/a/model.splat?v=2#top')).toBe('splat');
  });

  it('rejects garbage with a message naming what was seen', async () => {
    const garbage = text('GARBAGE\x01\x02 more bytes');
    expectFormatError(() => detectSplatFormat(garbage, 'scene.bin'), /Unrecognised/, /"GARBAGE\\x01"/, /'ply'/, /scene\.bin/, /\.splat/);
    expectFormatError(() => detectSplatFormat(garbage), /no file name/);
    await expectFormatRejection(loadSplatFile(garbage, 'scene.splat.bak'), /scene\.splat\.bak/);
    expectFormatError(() => detectSplatFormat(new Uint8Array(0), 'x'), /empty file/);
    // A .splat without a .splat name is not guessed at.
    await expectFormatRejection(loadSplatFile(readScene(SPLAT_FILE), 'model.bin'), /Unrecognised/);
  });
});
