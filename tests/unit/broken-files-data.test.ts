/**
 * Broken files whose data is wrong (the corpus: tests/support/broken-files.ts):
 * cut short anywhere, holding no splats, followed by extra bytes, or
 * holding NaN, Infinity or values too large to draw in any attribute.
 *
 * Decisions these cases pin down:
 * - Extra bytes after the data that a header declares (PLY, compressed PLY,
 *   SPZ) are allowed and ignored, as the reference readers (plyfile, the
 *   INRIA loader, Niantic's spz) do. A .splat has no header, so there a
 *   length that is not a whole number of 32-byte records is an error; a
 *   .splat cut at a record boundary is a smaller valid file.
 * - A zero or NaN quaternion in an INRIA ply loads as the identity rotation.
 */
import { describe, expect, it } from 'vitest';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import {
  CPLY, HEADER_TRUNCATED, IT_MS, NOT_RECOGNISED, PLY, PLY_TRUNCATED, show, SPLAT, SPZ, SPZ_TRUNCATED, useLoaderHarness,
} from '../support/broken-files';
import {
  compressedPly, concat, gzip, inriaPly, plyDataStart, spzPayload, spzPlaneSizes, spzV4, spzV4Streams, splatFile,
} from '../support/splat-files';

const { load, expectRejected, expectAccepted } = useLoaderHarness();

const PLY_START = plyDataStart(PLY);
const PLY_ROW = 248;
const CPLY_START = plyDataStart(CPLY);
const CPLY_CHUNKS_END = CPLY_START + 597 * 72;
const SPZ_STREAMS = spzV4Streams(SPZ);

describe('truncated files', () => {
  const cases: [string, () => Uint8Array, string, RegExp][] = [
    ['INRIA ply inside the magic line', () => PLY.slice(0, 2), 'scene.ply', NOT_RECOGNISED],
    ['INRIA ply inside the header', () => PLY.slice(0, 40), 'scene.ply', HEADER_TRUNCATED],
    ['INRIA ply inside "end_header"', () => PLY.slice(0, PLY_START - 5), 'scene.ply', HEADER_TRUNCATED],
    ['INRIA ply before the newline of end_header', () => PLY.slice(0, PLY_START - 1), 'scene.ply', HEADER_TRUNCATED],
    ['INRIA ply right after end_header', () => PLY.slice(0, PLY_START), 'scene.ply', PLY_TRUNCATED],
    ['INRIA ply after 100 whole rows', () => PLY.slice(0, PLY_START + 100 * PLY_ROW), 'scene.ply', PLY_TRUNCATED],
    ['INRIA ply mid-row', () => PLY.slice(0, PLY_START + 100 * PLY_ROW + 124), 'scene.ply', PLY_TRUNCATED],
    ['INRIA ply one byte short', () => PLY.slice(0, PLY.length - 1), 'scene.ply', PLY_TRUNCATED],
    ['compressed ply inside the header', () => CPLY.slice(0, 300), 'biker.ply', HEADER_TRUNCATED],
    ['compressed ply right after end_header', () => CPLY.slice(0, CPLY_START), 'biker.ply', /too short.*"chunk"/],
    ['compressed ply inside the chunk element', () => CPLY.slice(0, CPLY_START + 300 * 72 + 10), 'biker.ply', /too short.*"chunk"/],
    ['compressed ply right after the chunk element', () => CPLY.slice(0, CPLY_CHUNKS_END), 'biker.ply', /too short.*"vertex"/],
    ['compressed ply mid vertex row', () => CPLY.slice(0, CPLY_CHUNKS_END + 1000 * 16 + 7), 'biker.ply', /too short.*"vertex"/],
    ['compressed ply one byte short', () => CPLY.slice(0, CPLY.length - 1), 'biker.ply', /too short.*"vertex"/],
    ['spz inside the magic', () => SPZ.slice(0, 3), 'biker.spz', NOT_RECOGNISED],
    ['spz inside the 16-byte header', () => SPZ.slice(0, 10), 'biker.spz', SPZ_TRUNCATED],
    ['spz inside the 32-byte version 4 header', () => SPZ.slice(0, 20), 'biker.spz', SPZ_TRUNCATED],
    ['spz inside the stream table', () => SPZ.slice(0, 40), 'biker.spz', /truncated: the stream table/],
    ...SPZ_STREAMS.flatMap((s, i): [string, () => Uint8Array, string, RegExp][] => [
      [`spz at the start of stream ${i}`, () => SPZ.slice(0, s.start), 'biker.spz', new RegExp(`truncated: stream ${i} `)],
      [`spz inside stream ${i}`, () => SPZ.slice(0, (s.start + s.end) >> 1), 'biker.spz', new RegExp(`truncated: stream ${i} `)],
    ]),
    ['spz one byte short', () => SPZ.slice(0, SPZ.length - 1), 'biker.spz', /truncated: stream 4 /],
    ['.splat mid-record', () => SPLAT.slice(0, 32 * 1000 + 17), 'model.splat', /not a multiple of the 32-byte record/],
    ['.splat one byte short', () => SPLAT.slice(0, SPLAT.length - 1), 'model.splat', /not a multiple of the 32-byte record/],
  ];
  it.each(cases)('%s', async (_label, bytes, name, pattern) => {
    await expectRejected(bytes(), name, pattern);
  }, IT_MS);

  it('spz v2 (gzip-wrapped) cut inside its header and at every attribute plane boundary', async () => {
    const payload = spzPayload({ version: 2, count: 20, shDegree: 1 });
    const cuts = [8, 16];
    let at = 16;
    for (const size of spzPlaneSizes(2, 20, 1)) {
      at += size;
      cuts.push(at - size + 1, at - 1);
    }
    for (const cut of cuts) await expectRejected(gzip(payload.slice(0, cut)), 'small.spz', SPZ_TRUNCATED);
  }, IT_MS);

  it('spz v3 gzip stream itself cut short', async () => {
    const file = gzip(spzPayload({ version: 3, count: 50 }));
    for (const cut of [2, 10, file.length >> 1]) {
      await expectRejected(file.slice(0, cut), 'small.spz', /SPZ file is not valid gzip|SPZ data is truncated/);
    }
  }, IT_MS);

  it('spz v3 gzip stream cut inside its 8-byte trailer loads: reading stops where the header says the data ends', async () => {
    // Stopping there is what bounds a gzip bomb behind a valid header; the
    // CRC and length after the data are never reached.
    const file = gzip(spzPayload({ version: 3, count: 50 }));
    expect((await expectAccepted(file.slice(0, file.length - 1), 'small.spz')).count).toBe(50);
  }, IT_MS);

  it('a .splat cut at a record boundary is a smaller valid file (it has no header to contradict)', async () => {
    const o = await expectAccepted(SPLAT.slice(0, 32 * 1000), 'model.splat');
    expect(o.count).toBe(1000);
  }, IT_MS);

  const sweep = (bytes: Uint8Array, avoid32 = false): number[] => Array.from({ length: 32 }, (_, k) => {
    const cut = Math.floor((bytes.length * (k + 0.5)) / 32);
    return avoid32 && cut % 32 === 0 ? cut + 1 : cut;
  });
  const ANY_TRUNCATION = /truncated|too short|larger than the data|ends before|not a multiple/;
  it.each([
    ['INRIA ply', PLY, 'scene.ply', sweep(PLY)],
    ['compressed ply', CPLY, 'biker.ply', sweep(CPLY)],
    ['spz', SPZ, 'biker.spz', sweep(SPZ)],
    ['.splat', SPLAT, 'model.splat', sweep(SPLAT, true)],
  ] as const)('a sweep of 32 truncation points through the real %s', async (_label, file, name, cuts) => {
    for (const cut of cuts) await expectRejected(file.slice(0, cut), name, ANY_TRUNCATION);
  }, 32 * IT_MS);

  it.each([
    ['INRIA ply (SH 1)', inriaPly({ count: 5, shDegree: 1 }), 'small.ply'],
    ['compressed ply (SH 1)', compressedPly({ count: 20, shDegree: 1 }), 'small.ply'],
    ['spz v3 (uncompressed)', spzPayload({ version: 3, count: 10, shDegree: 1 }), 'small.spz'],
    ['spz v4', spzV4({ count: 5, shDegree: 1 }), 'small.spz'],
    ['.splat', splatFile(4), 'small.splat'],
  ] as const)('every truncation point of a small %s', async (_label, file, name) => {
    const failures: string[] = [];
    for (let cut = 0; cut < file.length; cut++) {
      if (name.endsWith('.splat') && cut % 32 === 0 && cut > 0) continue; // whole records: valid
      const o = await load(file.slice(0, cut), name);
      if (o.kind !== 'rejected') failures.push(`cut at ${cut}: ${show(o)}`);
    }
    expect(failures).toEqual([]);
  }, 60_000);
});

// ---------------------------------------------------------------------------

describe('zero splats', () => {
  it.each([
    ['an INRIA ply with "element vertex 0"', inriaPly({ count: 0 }), 'scene.ply'],
    ['a compressed ply with no chunks and no vertices', compressedPly({ count: 0 }), 'scene.ply'],
    ['an empty .splat', new Uint8Array(0), 'model.splat'],
    ['a gzip-wrapped spz v2 with 0 points', gzip(spzPayload({ version: 2, count: 0 })), 'empty.spz'],
    ['an uncompressed spz v3 with 0 points', spzPayload({ version: 3, count: 0 }), 'empty.spz'],
    ['an spz v4 with 0 points', spzV4({ count: 0 }), 'empty.spz'],
  ] as const)('%s', async (_label, bytes, name) => {
    await expectRejected(bytes, name, /holds (no|0) splats/);
  }, IT_MS);
});

// ---------------------------------------------------------------------------

describe('extra bytes after the data (allowed for formats with a header, and ignored)', () => {
  const junk = Uint8Array.from({ length: 1000 }, (_, i) => (i * 37 + 11) & 0xff);

  it.each([
    ['INRIA ply', inriaPly({ count: 30, shDegree: 1 }), 'scene.ply'],
    ['compressed ply', compressedPly({ count: 300, shDegree: 1 }), 'scene.ply'],
    ['spz v4', spzV4({ count: 30, shDegree: 1 }), 'scene.spz'],
    ['spz v3 (uncompressed)', spzPayload({ version: 3, count: 30 }), 'scene.spz'],
  ] as const)('%s with 1000 bytes of junk appended loads the same splats', async (_label, bytes, name) => {
    await expectAccepted(concat(bytes, junk), name);
    const [a, b] = [await loadSplatFile(bytes, name), await loadSplatFile(concat(bytes, junk), name)];
    expect(b.count).toBe(a.count);
    expect(b.positions).toEqual(a.positions);
    expect(b.sh).toEqual(a.sh);
  }, IT_MS);

  it('spz v2 with junk after the planes, inside the gzip stream', async () => {
    const payload = spzPayload({ version: 2, count: 30, shDegree: 1 });
    await expectAccepted(gzip(concat(payload, junk)), 'scene.spz');
  }, IT_MS);

  it('a .splat with 7 bytes appended is refused (no header says where the records end)', async () => {
    await expectRejected(concat(splatFile(6), junk.subarray(0, 7)), 'model.splat', /not a multiple of the 32-byte record/);
  }, IT_MS);
});

// ---------------------------------------------------------------------------

describe('NaN and Infinity in each attribute', () => {
  /** An SH 1 ply of 8 splats with `value` in property `name` of splat 3 (and of `more`). */
  const plyWith = (name: string, value: number, more: number[] = []): Uint8Array =>
    inriaPly({ count: 8, shDegree: 1, value: (n, i) => (n === name && (i === 3 || more.includes(i)) ? value : undefined) });

  it.each([
    ['x', NaN, /^position of splat 3 is NaN \(1 splat has a non-finite position\)/],
    ['y', Infinity, /^position of splat 3 is Infinity/],
    ['z', -Infinity, /^position of splat 3 is -Infinity/],
    ['f_dc_1', NaN, /^base colour \(f_dc\) of splat 3 is NaN/],
    ['f_dc_2', Infinity, /^base colour \(f_dc\) of splat 3 is Infinity/],
    ['f_rest_4', NaN, /^SH coefficient of splat 3 is NaN/],
    ['f_rest_8', -Infinity, /^SH coefficient of splat 3 is -Infinity/],
    ['opacity', NaN, /^PLY property opacity of splat 3 is NaN \(1 of the 8 splats read with it have a NaN or infinite opacity, scale or rotation\)/],
    ['scale_0', NaN, /^PLY property scale_0 of splat 3 is NaN/],
    ['scale_1', Infinity, /^PLY property scale_1 of splat 3 is Infinity/],
    ['rot_2', Infinity, /^PLY property rot_2 of splat 3 is Infinity/],
    ['rot_0', -Infinity, /^PLY property rot_0 of splat 3 is -Infinity/],
  ])('INRIA ply: %s = %s', async (name, value, pattern) => {
    await expectRejected(plyWith(name, value), 'scene.ply', pattern);
  }, IT_MS);

  it('counts the bad splats', async () => {
    await expectRejected(plyWith('x', NaN, [5, 6]), 'scene.ply', /^position of splat 3 is NaN \(3 splats have non-finite positions\)/);
  }, IT_MS);

  it('INRIA ply: a zero quaternion loads as the identity rotation, a NaN one is refused', async () => {
    const zero = inriaPly({ count: 4, value: (n, i) => (n.startsWith('rot_') && i === 2 ? 0 : undefined) });
    await expectAccepted(zero, 'scene.ply');
    const cloud = await loadSplatFile(zero, 'scene.ply');
    expect(Array.from(cloud.rotations.subarray(8, 12))).toEqual([1, 0, 0, 0]);
    const nan = inriaPly({ count: 4, value: (n, i) => (n.startsWith('rot_') && i === 2 ? NaN : undefined) });
    await expectRejected(nan, 'scene.ply', /^PLY property rot_0 of splat 2 is NaN/);
  }, IT_MS);

  it.each([
    ['min_y', NaN, /^position of splat 256 is NaN \(44 splats have non-finite positions\)/],
    ['max_x', Infinity, /^position of splat 256 is (Infinity|NaN)/],
    ['min_r', NaN, /^base colour \(f_dc\) of splat 256 is NaN/],
    ['max_scale_z', Infinity, /^scale of splat 256 is (Infinity|NaN)/],
    ['min_scale_x', NaN, /^scale of splat 256 is NaN/],
  ])('compressed ply: chunk 1 %s = %s', async (name, value, pattern) => {
    const bytes = compressedPly({ count: 300, chunkValue: (n, c) => (n === name && c === 1 ? value : undefined) });
    await expectRejected(bytes, 'scene.ply', pattern);
  }, IT_MS);

  it.each([
    ['position x', 0, NaN, /^position of splat 2 is NaN/],
    ['position z', 2, -Infinity, /^position of splat 2 is -Infinity/],
    ['scale y', 4, NaN, /^scale of splat 2 is NaN/],
    ['scale z', 5, Infinity, /^scale of splat 2 is Infinity/],
  ])('.splat: %s', async (_label, field, value, pattern) => {
    await expectRejected(splatFile(6, (f, i) => (f === field && i === 2 ? value : undefined)), 'model.splat', pattern);
  }, IT_MS);
});

// ---------------------------------------------------------------------------

describe('absurd scales, positions and colours', () => {
  const plyWith = (name: string, value: number): Uint8Array =>
    inriaPly({ count: 6, value: (n, i) => (n === name && i === 3 ? value : undefined) });

  it('a log scale of 1000 overflows exp()', async () => {
    await expectRejected(plyWith('scale_0', 1000), 'scene.ply', /^scale of splat 3 is Infinity .*log-scale above 88\.7 overflows/);
  }, IT_MS);

  it('a log scale of 30 (a 1e13 scale) is absurd', async () => {
    await expectRejected(plyWith('scale_2', 30), 'scene.ply', /^scale of splat 3 is 1\.07e\+13, absurdly large: beyond ±2\^32/);
  }, IT_MS);

  it('a log scale of 22 (3.6e9, under 2^32) is accepted', async () => {
    await expectAccepted(plyWith('scale_1', 22), 'scene.ply');
  }, IT_MS);

  it('a position of 1e30 is absurd', async () => {
    await expectRejected(plyWith('y', 1e30), 'scene.ply', /^position of splat 3 is 1\.00e\+30, absurdly large/);
  }, IT_MS);

  it('colour coefficients of ±3e38 (sums of them overflow on the GPU) are absurd', async () => {
    await expectRejected(plyWith('f_dc_0', 3e38), 'scene.ply', /^base colour \(f_dc\) of splat 3 is 3\.00e\+38, absurdly large/);
    const sh = inriaPly({ count: 6, shDegree: 1, value: (n, i) => (n === 'f_rest_2' && i === 4 ? -3e38 : undefined) });
    await expectRejected(sh, 'scene.ply', /^SH coefficient of splat 4 is -3\.00e\+38, absurdly large/);
  }, IT_MS);

  it.each([1e30, -1e30, 3.4e38])('a .splat scale of %s', async (value) => {
    await expectRejected(splatFile(6, (f, i) => (f === 3 && i === 3 ? value : undefined)), 'model.splat', /^scale of splat 3 is .*absurdly large/);
  }, IT_MS);

  it('a compressed ply chunk scale range up to log 1000', async () => {
    await expectRejected(compressedPly({ count: 20, chunkValue: (n) => (n === 'max_scale_y' ? 1000 : undefined) }), 'scene.ply',
      /^scale of splat \d+ is (Infinity|[\d.]+e\+\d+)/);
  }, IT_MS);
});
