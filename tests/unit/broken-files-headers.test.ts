/**
 * Broken files whose header is wrong or lies (the corpus:
 * tests/support/broken-files.ts): not a splat file or a variant the viewer
 * does not read; required properties missing, unknown or twice; splat and
 * element counts the data cannot hold, refused before anything big is
 * allocated; SPZ headers with a wrong version, SH degree, stream table or
 * zstd frame; and the INRIA ply's own header and value checks.
 *
 * SPZ values are quantised and always finite: a v2/v3 count lowered in the
 * header (which leaves bytes over) or a lowered SH degree loads (the
 * picture is wrong, the viewer is safe); a raised one is truncation.
 */
import { describe, expect, it } from 'vitest';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import {
  editHeader, HEADER_TRUNCATED, IT_MS, NOT_RECOGNISED, PLY, PLY_TRUNCATED, show, SMALL_ALLOCATION, SPZ, SPZ_TRUNCATED,
  useLoaderHarness, withByte, withU32, withU64,
} from '../support/broken-files';
import { splatPlyProperties } from '../support/ply-writer';
import {
  ascii, compressedPly, concat, gzip, inriaPly, plyDataStart, plyHeaderText, spzPayload, spzV4, spzV4Streams,
} from '../support/splat-files';

const { load, expectRejected, expectAccepted } = useLoaderHarness();

describe('not a splat file, or an unsupported variant', () => {
  it.each([
    ['"PLY" in capitals', ascii('PLY\nformat binary_little_endian 1.0\nend_header\n'), 'scene.ply', NOT_RECOGNISED],
    ['"ply" followed by a space', ascii('ply format binary_little_endian 1.0\nend_header\n'), 'scene.ply', NOT_RECOGNISED],
    ['an spz magic with one letter wrong', withByte(SPZ, 3, 0x51), 'biker.spz', NOT_RECOGNISED],
    ['a JPEG named .ply', new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46]), 'photo.ply', NOT_RECOGNISED],
    ['a zip signature and nothing after it', new Uint8Array([0x50, 0x4b, 3, 4, 20, 0, 0, 0]), 'scene.spz', /zip/],
    ['an empty file', new Uint8Array(0), 'scene.ply', NOT_RECOGNISED],
    ['a gzip of a ply named .spz', gzip(inriaPly({ count: 3 })), 'scene.spz', /Not an SPZ file: expected magic 'NGSP'/],
    ['an ASCII ply', inriaPly({ count: 3, format: 'ascii' }), 'scene.ply', /"ascii" is not supported/],
    ['an ASCII compressed ply', editHeader(compressedPly({ count: 20 }), 'binary_little_endian', 'ascii'), 'scene.ply', /ascii.* not supported/],
    ['an unknown PLY format', editHeader(PLY, 'binary_little_endian', 'binary_middle_endian'), 'scene.ply', /unknown format "binary_middle_endian"/],
    ['a ply with no format line', editHeader(PLY, /format [^\n]*\n/, ''), 'scene.ply', /no "format" line/],
    ['a ply with no vertex element', ascii(plyHeaderText(['format binary_little_endian 1.0', 'element face 0', 'property float x'])), 'scene.ply', /no "vertex" element/],
    ['a ply with a list property in the vertex element', editHeader(PLY, 'property float nx', 'property list uchar float nx'), 'scene.ply', /list property/],
  ] as const)('%s', async (_label, bytes, name, pattern) => {
    await expectRejected(bytes, name, pattern);
  }, IT_MS);

  it('a big-endian INRIA ply loads the same splats as its little-endian twin, or is refused as not supported', async () => {
    const le = inriaPly({ count: 7, shDegree: 1 });
    const be = inriaPly({ count: 7, shDegree: 1, format: 'binary_big_endian' });
    const o = await load(be, 'be.ply');
    if (o.kind === 'rejected') {
      expect(o.message).toMatch(/big_endian.* not supported/);
    } else {
      expect(show(o)).toMatch(/^accepted/);
      const [a, b] = [await loadSplatFile(le, 'le.ply'), await loadSplatFile(be, 'be.ply')];
      expect(b.positions).toEqual(a.positions);
      expect(b.sh).toEqual(a.sh);
      expect(b.rotations).toEqual(a.rotations);
    }
  }, IT_MS);

  it('a big-endian compressed ply loads the same splats as its little-endian twin', async () => {
    const a = await loadSplatFile(compressedPly({ count: 300 }), 'le.ply');
    const b = await loadSplatFile(compressedPly({ count: 300, format: 'binary_big_endian' }), 'be.ply');
    expect(b.positions).toEqual(a.positions);
    expect(b.scales).toEqual(a.scales);
    expect(b.dc).toEqual(a.dc);
  });
});

// ---------------------------------------------------------------------------

const REQUIRED = [
  'x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity',
  'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3',
];

describe('missing, unknown or duplicate properties', () => {
  it.each(REQUIRED)('INRIA ply without "%s"', async (missing) => {
    const properties = splatPlyProperties(0).filter((p) => p !== missing);
    await expectRejected(inriaPly({ count: 4, properties }), 'scene.ply', new RegExp(`missing required property "${missing}"`));
  }, IT_MS);

  it.each(['min_x', 'max_scale_z', 'packed_position', 'packed_color'])('compressed ply without "%s"', async (missing) => {
    const bytes = editHeader(compressedPly({ count: 20 }), new RegExp(`property (float|uint) ${missing}\\n`), 'property $1 unused\n');
    await expectRejected(bytes, 'scene.ply', new RegExp(`missing property "${missing}"`));
  }, IT_MS);

  it.each([
    ['12 f_rest properties (no SH degree has 12)', 12],
    ['46 f_rest properties', 46],
  ])('INRIA ply with %s', async (_label, rest) => {
    const properties = [...splatPlyProperties(0), ...Array.from({ length: rest }, (_, i) => `f_rest_${i}`)];
    await expectRejected(inriaPly({ count: 4, properties }), 'scene.ply', /f_rest.*expected f_rest_0\.\. with 0, 9, 24 or 45/);
  }, IT_MS);

  it('INRIA ply with f_rest_0..8 and f_rest_10 (a gap)', async () => {
    const properties = [...splatPlyProperties(0), ...[0, 1, 2, 3, 4, 5, 6, 7, 8, 10].map((i) => `f_rest_${i}`)];
    await expectRejected(inriaPly({ count: 4, properties }), 'scene.ply', /f_rest/);
  }, IT_MS);

  it('compressed ply whose sh element has 12 bands', async () => {
    const bytes = editHeader(compressedPly({ count: 20, shDegree: 1 }), 'property uchar f_rest_8\n',
      'property uchar f_rest_8\nproperty uchar f_rest_9\nproperty uchar f_rest_10\nproperty uchar f_rest_11\n');
    await expectRejected(concat(bytes, new Uint8Array(20 * 3)), 'scene.ply', /sh element has 12 f_rest_\* properties/);
  }, IT_MS);

  it.each([
    ['"x"', 'x'],
    ['"f_rest_3"', 'f_rest_3'],
  ])('INRIA ply with %s twice', async (_label, name) => {
    const properties = [...splatPlyProperties(1), name];
    await expectRejected(inriaPly({ count: 4, shDegree: 1, properties }), 'scene.ply',
      new RegExp(`"${name}" twice|duplicate.*"${name}"|f_rest`));
  }, IT_MS);

  it('compressed ply with "packed_position" twice', async () => {
    const bytes = editHeader(compressedPly({ count: 20 }), 'property uint packed_color\n',
      'property uint packed_color\nproperty uint packed_position\n');
    await expectRejected(bytes, 'scene.ply', /"packed_position" twice/);
  }, IT_MS);

  it('compressed ply with two chunk elements', async () => {
    const base = compressedPly({ count: 20 });
    const header = new TextDecoder('latin1').decode(base.subarray(0, plyDataStart(base)));
    const chunkLines = header.slice(header.indexOf('element chunk'), header.indexOf('element vertex'));
    const bytes = concat(ascii(header.replace('element vertex', `${chunkLines}element vertex`)),
      base.subarray(plyDataStart(base), plyDataStart(base) + 72), base.subarray(plyDataStart(base)));
    await expectRejected(bytes, 'scene.ply', /element "chunk" twice/);
  }, IT_MS);

  it.each([
    ['half', 'unknown property type'],
    ['float16', 'unknown property type'],
  ])('INRIA ply with a property of unknown type "%s"', async (type, message) => {
    await expectRejected(editHeader(PLY, 'property float nx', `property ${type} nx`), 'scene.ply', new RegExp(message));
  }, IT_MS);

  it('compressed ply with float packed properties', async () => {
    await expectRejected(compressedPly({ count: 20, packedType: 'float' }), 'scene.ply', /unexpected type/);
  }, IT_MS);

  it('a header with no end_header line', async () => {
    await expectRejected(inriaPly({ count: 4, endHeader: 'comment end of header' }), 'scene.ply', /end_header|unexpected line/);
    await expectRejected(ascii(plyHeaderText(['format binary_little_endian 1.0', 'element vertex 1'], 'comment')), 'scene.ply', HEADER_TRUNCATED);
  }, IT_MS);

  it('a list element before the vertices is refused (a negative list length would walk rows backwards)', async () => {
    const bytes = inriaPly({ count: 3, before: ['element face 1099511627776', 'property list char uchar idx'] });
    await expectRejected(concat(bytes.subarray(0, plyDataStart(bytes)), new Uint8Array([0xff]), bytes.subarray(plyDataStart(bytes))),
      'scene.ply', /list property/);
  }, IT_MS);
});

// ---------------------------------------------------------------------------

describe('lying counts', () => {
  /** A valid sh0 ply of 1,000 splats whose vertex count is written as `count`. */
  const plyCounting = (count: string): Uint8Array => inriaPly({ count: 1000, declaredCount: count });

  it.each([
    ['2^40', String(2 ** 40), /larger than the data/],
    ['2^53', String(2 ** 53), /malformed element line|too large/],
    ['2^53 + 1', '9007199254740993', /malformed element line|too large/],
    ['-1', '-1', /malformed element line/],
    ['1.5', '1.5', /malformed element line/],
    ['NaN', 'NaN', /malformed element line/],
    ['12abc', '12abc', /malformed element line/],
    ['1001 (one more than the data)', '1001', /larger than the data|truncated/],
  ])('INRIA ply vertex count %s', async (_label, count, pattern) => {
    const o = await expectRejected(plyCounting(count), 'scene.ply', pattern);
    expect(o.largestAlloc).toBeLessThan(SMALL_ALLOCATION);
  }, IT_MS);

  it('the real INRIA ply with its count one above the data', async () => {
    await expectRejected(editHeader(PLY, 'element vertex 9080', 'element vertex 9081'), 'scene.ply', PLY_TRUNCATED);
  }, IT_MS);

  it('an element before the vertices with a count of 2^40', async () => {
    const o = await expectRejected(inriaPly({ count: 3, before: ['element extra 1099511627776', 'property float a'] }),
      'scene.ply', /larger than the data|truncated/);
    expect(o.largestAlloc).toBeLessThan(SMALL_ALLOCATION);
  }, IT_MS);

  it.each([
    ['vertex count 2^40', { declaredVertexCount: 2 ** 40 }, /only 2 chunks|too short/],
    ['vertex count 2^53', { declaredVertexCount: String(2 ** 53) }, /malformed element line/],
    ['vertex count -1', { declaredVertexCount: -1 }, /malformed element line/],
    ['chunk count 2^40', { declaredChunkCount: 2 ** 40 }, /too short.*"chunk"/],
    ['vertex count above 256 per chunk', { count: 513, chunks: 2 }, /513 vertices but only 2 chunks/],
  ])('compressed ply %s', async (_label, options, pattern) => {
    const o = await expectRejected(compressedPly({ count: 300, ...options }), 'scene.ply', pattern);
    expect(o.largestAlloc).toBeLessThan(SMALL_ALLOCATION);
  }, IT_MS);

  it.each([
    ['count + 1', 21, SPZ_TRUNCATED],
    ['count × 2^10', 20 * 1024, SPZ_TRUNCATED],
    ['count 2^32 - 1', 0xffffffff, /more than the 10,000,000|SPZ data is truncated/],
  ])('spz v2 %s', async (_label, declaredCount, pattern) => {
    const o = await expectRejected(gzip(spzPayload({ version: 2, count: 20, declaredCount })), 'small.spz', pattern);
    expect(o.largestAlloc).toBeLessThan(SMALL_ALLOCATION);
  }, IT_MS);

  it.each([
    ['count + 1', 152747, /stream 0 holds 1,?374,?714 bytes/],
    ['count × 2', 152746 * 2, /stream 0 holds/],
    ['count 0', 0, /stream 0 holds/],
    ['count 2^32 - 1', 0xffffffff, /more than the 10,000,000|stream 0 holds/],
  ])('the real spz v4 with %s', async (_label, count, pattern) => {
    const o = await expectRejected(withU32(SPZ, 8, count), 'biker.spz', pattern);
    expect(o.largestAlloc).toBeLessThan(64 * 2 ** 20);
  }, IT_MS);

  it('spz v3 with a halved count loads: the planes are misread but every SPZ value is quantised, so finite', async () => {
    const o = await expectAccepted(spzPayload({ version: 3, count: 40, declaredCount: 20 }), 'small.spz');
    expect(o.count).toBe(20);
  }, IT_MS);
});

// ---------------------------------------------------------------------------

describe('spz with a lying header', () => {
  it.each([
    ['version 1', 1, /Unsupported SPZ version 1/],
    ['version 5', 5, /Unsupported SPZ version 5/],
    ['version 2^32 - 1', 0xffffffff, /Unsupported SPZ version 4294967295/],
    ['version 3 on a version 4 file', 3, SPZ_TRUNCATED],
    ['version 2 on a version 4 file', 2, SPZ_TRUNCATED],
  ])('%s', async (_label, version, pattern) => {
    await expectRejected(withU32(SPZ, 4, version), 'biker.spz', pattern);
  }, IT_MS);

  it('version 4 on a version 3 file', async () => {
    const v3 = spzPayload({ version: 3, count: 30, shDegree: 1 });
    await expectRejected(withU32(v3, 4, 4), 'small.spz', /stream/);
  }, IT_MS);

  it.each([4, 5, 255])('SH degree %i', async (degree) => {
    await expectRejected(withByte(SPZ, 12, degree), 'biker.spz', new RegExp(`SH degree ${degree}`));
  }, IT_MS);

  it('SH degree raised on the real v4 file (5 streams, degree 1 needs 6)', async () => {
    await expectRejected(withByte(SPZ, 12, 1), 'biker.spz', /lists 5 streams, but SH degree 1 needs 6/);
  }, IT_MS);

  it('SH degree raised on a v2 file', async () => {
    await expectRejected(gzip(spzPayload({ version: 2, count: 20, shDegree: 1, declaredShDegree: 2 })), 'small.spz', SPZ_TRUNCATED);
  }, IT_MS);

  it('SH degree 3 on a v4 file of degree 2 (same stream count, bigger SH stream)', async () => {
    await expectRejected(withByte(spzV4({ count: 20, shDegree: 2 }), 12, 3), 'small.spz', /stream 5 holds/);
  }, IT_MS);

  it('SH degree lowered: the SH planes are ignored, the rest is right', async () => {
    const o = await expectAccepted(withByte(spzV4({ count: 20, shDegree: 2 }), 12, 0), 'small.spz');
    expect(o.count).toBe(20);
  }, IT_MS);

  it.each([24, 255])('%i fractional bits', async (bits) => {
    await expectRejected(withByte(SPZ, 13, bits), 'biker.spz', new RegExp(`${bits} fractional bits`));
  }, IT_MS);

  it.each([0, 4])('a v4 stream count of %i', async (streams) => {
    await expectRejected(withByte(SPZ, 15, streams), 'biker.spz', new RegExp(`lists ${streams} streams`));
  }, IT_MS);

  it.each([
    ['past the end of the file', 0xffffff00],
    ['inside the header', 0],
  ])('a v4 stream table offset %s', async (_label, offset) => {
    await expectRejected(withU32(SPZ, 16, offset), 'biker.spz', /stream table/);
  }, IT_MS);

  it.each([
    ['compressed size 2^63', 32, 2n ** 63n, /truncated: stream 0 needs/],
    ['compressed size 2^53 + 1', 32, 2n ** 53n + 1n, /truncated: stream 0 needs/],
    ['raw size × 2', 40, 152746n * 18n, /stream 0 holds 2,?749,?428 bytes/],
    ['raw size 2^64 - 1', 40, 2n ** 64n - 1n, /stream 0 holds/],
  ])('a v4 stream table entry with %s', async (_label, at, value, pattern) => {
    const o = await expectRejected(withU64(SPZ, at, value), 'biker.spz', pattern);
    expect(o.largestAlloc).toBeLessThan(64 * 2 ** 20);
  }, IT_MS);

  it('a zstd frame whose content size lies (2^31 - 1 bytes) is refused before allocating it', async () => {
    const file = spzV4({ count: 20 });
    const frame = spzV4Streams(file)[0]!.start;
    const o = await expectRejected(withU32(file, frame + 5, 2 ** 31 - 1), 'small.spz', /stream 0/);
    expect(o.largestAlloc).toBeLessThan(SMALL_ALLOCATION);
  }, IT_MS);

  it('a zstd frame with no content size and a 1 GiB window is refused before allocating the window', async () => {
    const file = spzV4({ count: 20 });
    const { start, end } = spzV4Streams(file)[0]!;
    // Frame header: flags 0x00 (window descriptor, no content size), window 2^30; the blocks as they were.
    const frame = concat(new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0x00, (30 - 10) << 3]), file.subarray(start + 9, end));
    const toc = new DataView(file.buffer).getUint32(16, true);
    const edited = concat(file.subarray(0, start), frame, file.subarray(end));
    const bytes = withU64(edited, toc, BigInt(frame.length));
    const o = await expectRejected(bytes, 'small.spz', /stream 0.*window/);
    expect(o.largestAlloc).toBeLessThan(SMALL_ALLOCATION);
  }, IT_MS);

  it('a stream that is not zstd', async () => {
    const file = spzV4({ count: 20 });
    await expectRejected(withU32(file, spzV4Streams(file)[1]!.start, 0x04034b50), 'small.spz', /not a zstd frame/);
  }, IT_MS);
});

// ---------------------------------------------------------------------------

describe('INRIA ply header and value checks', () => {
  // Cases the INRIA ply reader (src/io/ply/parse.ts, being rewritten) fails today.
  it.each([
    ['1e3', '1e3'],
    ['0x3e8', '0x3e8'],
    ['+1000', '+1000'],
    ['1000.0', '1000.0'],
  ])('vertex count written as "%s" is malformed, not 1000', async (_label, count) => {
    await expectRejected(inriaPly({ count: 1000, declaredCount: count }), 'scene.ply', /malformed element line/);
  }, IT_MS);

  it.each(['toString', '__proto__', 'constructor', 'hasOwnProperty'])('a property of type "%s" is an unknown type', async (type) => {
    const bytes = inriaPly({ count: 3, before: [] });
    await expectRejected(editHeader(bytes, 'property float nx', `property ${type} nx`), 'scene.ply', /unknown property type/);
  }, IT_MS);

  it('a property of type "toString" with a vertex count of 10^8 allocates nothing for it', async () => {
    const bytes = editHeader(inriaPly({ count: 3, declaredCount: 100_000_000 }), 'property float nx', 'property toString nx');
    const o = await expectRejected(bytes, 'scene.ply', /unknown property type/);
    expect(o.largestAlloc).toBeLessThan(SMALL_ALLOCATION);
  }, IT_MS);

  it.each([
    ['opacity', Infinity],
    ['opacity', -Infinity],
    ['scale_0', -Infinity],
  ])('a raw %s of %s is refused (it activates to a finite 1, 0 or 0 the validator cannot see)', async (name, value) => {
    const bytes = inriaPly({ count: 6, value: (n, i) => (n === name && i === 3 ? value : undefined) });
    await expectRejected(bytes, 'scene.ply', new RegExp(`${name === 'opacity' ? 'opacity' : 'scale'}.* splat 3 .*Infinity|Infinity.* splat 3`));
  }, IT_MS);

  it('two vertex elements', async () => {
    const bytes = inriaPly({ count: 3, before: ['element vertex 3', ...splatPlyProperties(0).map((p) => `property float ${p}`)] });
    await expectRejected(concat(bytes, bytes.subarray(plyDataStart(bytes))), 'scene.ply', /element "vertex" twice|two "vertex" elements/);
  }, IT_MS);
});
