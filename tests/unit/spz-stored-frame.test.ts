/**
 * SPZ files that say which axes their splats are stored in (the
 * SPZ_ADOBE_coordinate_system extension, src/io/spz/stored-frame.ts): the
 * frame's matrix to the viewer's RDF, read from a gzip-wrapped file (the
 * records after the planes) and a version 4 one (the records in the header
 * zone). A file recording RUB, the default, reads the same splats as one
 * that records nothing, but with its axes known; any other frame reads as the same data turned by its matrix:
 * positions, each splat's covariance and its view-dependent colour. Bad
 * records are refused by name.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseSpz } from '../../src/io/spz/parse';
import { coordinateSystemRecord, frameToRdf, type SpzFrame } from '../../src/io/spz/stored-frame';
import { writeSpz } from '../../src/io/writers/spz';
import { shBasis } from '../../src/io/sh-rotation';
import { allocateSplatCloud, computeBounds, shCoefficients, type SplatCloud } from '../../src/scene/splat-cloud';
import { concat, gzip, rng, spzV4 } from '../support/splat-files';

/** A small SH-3 scene with every value varied. */
function scene(): SplatCloud {
  const random = rng(5);
  const count = 40;
  const cloud = allocateSplatCloud(count, 3);
  for (let i = 0; i < count * 3; i++) {
    cloud.positions[i] = (random() - 0.5) * 4;
    cloud.scales[i] = 0.02 + random() * 0.2;
    cloud.dc[i] = random() - 0.5;
  }
  for (let i = 0; i < count; i++) {
    const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
    const n = Math.hypot(...q);
    cloud.rotations.set(q.map((v) => v / n), 4 * i);
    cloud.opacities[i] = 0.2 + random() * 0.7;
  }
  for (let i = 0; i < cloud.sh.length; i++) cloud.sh[i] = (random() - 0.5) * 0.6;
  cloud.bounds = computeBounds(cloud.positions, count);
  return cloud;
}

/** A gzip-wrapped SPZ (what the writer makes) with extension records after its planes. */
function withRecords(file: Uint8Array, ...records: Uint8Array[]): Uint8Array {
  const data = gunzipSync(file);
  data[14] |= 2;
  return gzip(concat(data, ...records));
}

/** A version 4 SPZ with extension records in its header zone (the stream table moved after them). */
function v4WithRecords(file: Uint8Array, ...records: Uint8Array[]): Uint8Array {
  const zone = concat(...records);
  const header = file.slice(0, 32);
  header[14] |= 2;
  new DataView(header.buffer).setUint32(16, 32 + zone.length, true);
  return concat(header, zone, file.subarray(32));
}

const apply = (m: readonly number[], v: readonly number[]) => [0, 1, 2].map((r) => m[3 * r]! * v[0]! + m[3 * r + 1]! * v[1]! + m[3 * r + 2]! * v[2]!);
const transpose = (m: readonly number[]) => [m[0]!, m[3]!, m[6]!, m[1]!, m[4]!, m[7]!, m[2]!, m[5]!, m[8]!];
const multiply = (a: readonly number[], b: readonly number[]) => [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => a[3 * r]! * b[c]! + a[3 * r + 1]! * b[3 + c]! + a[3 * r + 2]! * b[6 + c]!));

/** Splat i's covariance, R S² Rᵀ (row-major). */
function covariance(cloud: SplatCloud, i: number): number[] {
  const [w, x, y, z] = cloud.rotations.subarray(4 * i, 4 * i + 4);
  const r = [
    1 - 2 * (y! * y! + z! * z!), 2 * (x! * y! - w! * z!), 2 * (x! * z! + w! * y!),
    2 * (x! * y! + w! * z!), 1 - 2 * (x! * x! + z! * z!), 2 * (y! * z! - w! * x!),
    2 * (x! * z! - w! * y!), 2 * (y! * z! + w! * x!), 1 - 2 * (x! * x! + y! * y!),
  ];
  const s = cloud.scales.subarray(3 * i, 3 * i + 3);
  const rs = r.map((v, k) => v * s[k % 3]! * s[k % 3]!);
  return multiply(rs, transpose(r));
}

/** Splat i's view-dependent colour (degrees 1–3, red) looking along d. */
function shColour(cloud: SplatCloud, i: number, d: readonly number[]): number {
  const basis = new Float64Array(15);
  shBasis(d[0]!, d[1]!, d[2]!, basis);
  const K = shCoefficients(cloud.shDegree);
  let sum = 0;
  for (let k = 0; k < K; k++) sum += basis[k]! * cloud.sh[(i * K + k) * 3]!;
  return sum;
}

/** `turned` is `plain` turned by m: positions, covariances, and colours looked up along mᵀ d. */
function expectTurned(turned: SplatCloud, plain: SplatCloud, m: readonly number[]): void {
  expect(turned.count).toBe(plain.count);
  const directions = [[0.6, 0.64, 0.48], [-0.8, 0, 0.6], [0, -1, 0], [0.48, -0.6, 0.64]];
  for (let i = 0; i < plain.count; i++) {
    const at = apply(m, [...plain.positions.subarray(3 * i, 3 * i + 3)]);
    at.forEach((v, k) => expect(turned.positions[3 * i + k]).toBeCloseTo(v, 5));
    const want = multiply(multiply(m, covariance(plain, i)), transpose(m));
    covariance(turned, i).forEach((v, k) => expect(v).toBeCloseTo(want[k]!, 6));
    for (const d of directions) expect(shColour(turned, i, d)).toBeCloseTo(shColour(plain, i, apply(transpose(m), d)), 5);
  }
}

describe('the frames an SPZ may record', () => {
  it('map to RDF by signed permutations: RUB by a half turn about x, RDF as it is, a z-up frame by a quarter turn', () => {
    expect(frameToRdf('RUB')).toEqual([1, 0, 0, 0, -1, 0, 0, 0, -1]);
    expect(frameToRdf('RDF')).toEqual([1, 0, 0, 0, 1, 0, 0, 0, 1]);
    expect(frameToRdf('RFU')).toEqual([1, 0, 0, 0, 0, -1, 0, 1, 0]);
    expect(frameToRdf('LUF')).toEqual([-1, 0, 0, 0, -1, 0, 0, 0, 1]);
  });
});

describe('an SPZ that records its frame', () => {
  const file = writeSpz(scene());

  it('recording RUB, the default, reads as the same splats as one that records nothing, but with its axes known (gzip-wrapped and version 4)', async () => {
    const plain = await parseSpz(file);
    const recorded = await parseSpz(withRecords(file, coordinateSystemRecord('RUB')));
    expect(recorded.positions).toEqual(plain.positions);
    expect(recorded.sh).toEqual(plain.sh);
    expect([plain.axes, recorded.axes]).toEqual(['two-way', 'recorded']);
    const v4 = spzV4({ count: 30, shDegree: 2 });
    const v4Recorded = await parseSpz(v4WithRecords(v4, coordinateSystemRecord('RUB')));
    expect(v4Recorded.positions).toEqual((await parseSpz(v4)).positions);
    expect(v4Recorded.axes).toBe('recorded');
  });

  it('a record of frame 0 ("unspecified") leaves the axes two-way, as no record does', async () => {
    const unspecified = coordinateSystemRecord('RUB');
    new DataView(unspecified.buffer).setUint32(8, 0, true);
    const read = await parseSpz(withRecords(file, unspecified));
    expect(read.axes).toBe('two-way');
    expect(read.positions).toEqual((await parseSpz(file)).positions);
  });

  it.each<SpzFrame>(['RDF', 'RFU', 'LUF', 'LBD'])('recording %s reads as the same data turned from that frame', async (frame) => {
    const plain = await parseSpz(file);
    // Read as the default, the data was turned from RUB: from `frame` instead, it is that turn's undoing followed by the frame's.
    const m = multiply(frameToRdf(frame), transpose(frameToRdf('RUB')));
    // An unknown record beside it is skipped.
    const unknown = new Uint8Array([1, 0, 0x34, 0x12, 4, 0, 0, 0, 9, 9, 9, 9]);
    expectTurned(await parseSpz(withRecords(file, unknown, coordinateSystemRecord(frame))), plain, m);
  });

  it('recording a frame in a version 4 header zone turns its splats the same way', async () => {
    const v4 = spzV4({ count: 30, shDegree: 2 });
    const m = multiply(frameToRdf('RBU'), transpose(frameToRdf('RUB')));
    const plain = await parseSpz(v4);
    const turned = await parseSpz(v4WithRecords(v4, coordinateSystemRecord('RBU')));
    for (let i = 0; i < plain.count; i++) {
      apply(m, [...plain.positions.subarray(3 * i, 3 * i + 3)]).forEach((v, k) => expect(turned.positions[3 * i + k]).toBeCloseTo(v, 5));
    }
  });

  it('refuses a record that runs past its block, or a frame the format does not have, saying which', async () => {
    const long = new Uint8Array(12);
    new DataView(long.buffer).setUint32(0, 0xadbe0003, true);
    new DataView(long.buffer).setUint32(4, 1_000_000, true);
    await expect(parseSpz(withRecords(file, long))).rejects.toThrow(/extension 0xadbe0003 says it holds 1000000 bytes, but only 4 follow/);
    const seventeen = coordinateSystemRecord('RUB');
    new DataView(seventeen.buffer).setUint32(8, 17, true);
    await expect(parseSpz(withRecords(file, seventeen))).rejects.toThrow(/names frame 17: the format has frames 1 to 16/);
    await expect(parseSpz(withRecords(file, new Uint8Array(5)))).rejects.toThrow(/cut short: its type and length need 8 bytes/);
  });
});
