/**
 * No decompression bomb or lying header may cost more memory or time than a
 * real scene of the size it claims, and no decoder may allocate for more
 * splats than the GPU can draw (src/io/load-limits.ts). The bombs run the
 * way the viewer loads files (loadSplatFile, default limits) in the loader
 * harness's worker, under its allocation meter and a time limit; the
 * boundaries of the limits are checked in process with small limits.
 *
 * Before these checks (measured on the 2-core CI machine by the tester):
 * the 1 GiB gzip bomb .spz was inflated whole (3.2-3.5 GB, 38-48 s) before
 * its magic was read, a 622 KB .spz declaring 10M SH3 splats loaded (76 s,
 * 5.7 GB), and a 1 MB .sog with a 1000 MiB entry inflated it (1-2.7 GB,
 * 17-29 s). Each bomb here must be settled in well under a second of work:
 * the time bound is generous for a slow machine, the byte bound is the point.
 */
import { crc32, deflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSplatCount, DEFAULT_LOAD_LIMITS, SplatLimitError, type LoadLimits } from '../../src/io/load-limits';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { parseSplatPly, SplatFormatError } from '../../src/io/ply/parse';
import { parseSogBundle } from '../../src/io/sog/bundle';
import { parseSog } from '../../src/io/sog/decode';
import { SOG_META_MAX_BYTES } from '../../src/io/sog/meta';
import { parseSpz } from '../../src/io/spz/parse';
import { webpByteBound } from '../../src/io/webp-header';
import { SCENES_DIR } from '../shared-scenes';
import { deflateRun, gzipRun, type Deflated, sogWith, spzHeader, spzPlaneBytes, zipArchive, zstdRleFrame } from '../support/bombs';
import { buildHarness, removeHarness } from '../support/build-harness';
import { writeKsplat } from '../support/ksplat-writer';
import { HarnessWorker, type Outcome } from '../support/loader-harness';
import { writeSog, type WrittenSog } from '../support/sog-writer';
import { compressedPly, concat, inriaPly, spzPayload, spzV4, zstdStored } from '../support/splat-files';

const MIB = 2 ** 20;
/** Past this a case is a hang; a bomb that inflates whole takes 10-80 s here. */
const CASE_MS = 20_000;
const IT_MS = CASE_MS + 15_000;
/** A refused bomb settles in well under a second of work; 10 s leaves room for a slow, shared machine. */
const SETTLED_MS = 10_000;

let bundle: string;
let harness: HarnessWorker;
let sog: WrittenSog;
beforeAll(async () => {
  bundle = await buildHarness();
  harness = new HarnessWorker(bundle, { SPLATSORT_SCENES: SCENES_DIR });
  sog = await writeSog(parseSplatPly(inriaPly({ count: 50, shDegree: 1 })), { paletteSize: 16 });
}, 120_000);
afterAll(async () => {
  await harness?.close();
  if (bundle) removeHarness(bundle);
});

async function load(bytes: Uint8Array, name: string): Promise<Outcome> {
  return (await harness.run({ kind: 'load', bytes, name }, CASE_MS)).outcome;
}

/** "errorName: message" of a refused load, else what happened instead. */
function refusal(o: Outcome): string {
  const refused = o.kind === 'rejected';
  return refused ? `${o.errorName}: ${o.message}` : `${o.kind} (${o.errorName ?? ''}): ${o.message ?? ''}`;
}

/** Expects a refusal matching `pattern`, settled in time with no allocation above `maxAlloc`. */
async function expectRefused(bytes: Uint8Array, name: string, pattern: RegExp, maxAlloc: number): Promise<Outcome> {
  const o = await load(bytes, name);
  expect(refusal(o)).toMatch(pattern);
  expect(o.largestAlloc).toBeLessThan(maxAlloc);
  expect(o.ms).toBeLessThan(SETTLED_MS);
  return o;
}

describe('SPZ decompression bombs', () => {
  it('a 1 MB gzip of 1 GiB of zeros is refused at its first 16 bytes', async () => {
    const bomb = gzipRun(new Uint8Array(0), 0, 1024);
    expect(bomb.length).toBeLessThan(1.1 * MIB);
    await expectRefused(bomb, 'bomb.spz', /^SplatFormatError: Not an SPZ file: expected magic 'NGSP', found bytes 00 00 00 00/, MIB);
  }, IT_MS);

  it('a header of 1,000 splats followed by 1 GiB of zeros loads its 1,000 splats and reads no further', async () => {
    const bomb = gzipRun(spzHeader(2, 1000, 0), 0, 1024);
    const o = await load(bomb, 'bomb.spz');
    expect(`${o.kind}: ${o.message ?? ''}`).toBe('accepted: ');
    expect(o.count).toBe(1000);
    // The 1,000-splat cloud and its 19 KB of planes, nothing of the gigabyte.
    expect(o.largestAlloc).toBeLessThan(MIB);
    expect(o.ms).toBeLessThan(SETTLED_MS);
  }, IT_MS);

  it('a gzip-wrapped version 4 file followed by 1 GiB of zeros reads only what its stream table describes', async () => {
    const o = await load(gzipRun(spzV4({ count: 20, shDegree: 2 }), 0, 1024), 'bomb.spz');
    expect(`${o.kind}: ${o.message ?? ''}`).toBe('accepted: ');
    expect(o.count).toBe(20);
    expect(o.largestAlloc).toBeLessThan(MIB);
    expect(o.ms).toBeLessThan(SETTLED_MS);
  }, IT_MS);

  it('a 0.6 MB file declaring 10,000,000 splats of SH degree 3 is refused before anything is decoded', async () => {
    const bomb = gzipRun(spzHeader(2, 10_000_000, 3), 0, Math.ceil(spzPlaneBytes(2, 10_000_000, 3) / MIB));
    expect(bomb.length).toBeLessThan(0.7 * MIB);
    await expectRefused(bomb, 'lying.spz',
      /^SplatLimitError: The SPZ header declares 10,000,000 splats of SH degree 3: more than the 2,097,152 this GPU can draw/, MIB);
  }, IT_MS);

  it('one splat more than the GPU can draw is refused; the raw (not gzipped) header too', async () => {
    const count = DEFAULT_LOAD_LIMITS.maxSplats[3] + 1;
    const over = gzipRun(spzHeader(3, count, 3), 0, Math.ceil(spzPlaneBytes(3, count, 3) / MIB));
    const pattern = /^SplatLimitError: The SPZ header declares 2,097,153 splats of SH degree 3/;
    await expectRefused(over, 'over.spz', pattern, MIB);
    await expectRefused(concat(spzHeader(3, count, 3), new Uint8Array(1000)), 'over.spz', pattern, MIB);
    await expectRefused(concat(spzHeader(4, count, 3), new Uint8Array(1000)), 'over.spz', pattern, MIB);
  }, IT_MS);

  it('a version 4 zstd stream of 2.5 GiB of RLE blocks is refused from its block headers', async () => {
    // 1,000 splats of SH degree 0: stream 0 (positions) must hold 9,000 bytes.
    const streams = [zstdRleFrame(20_000), ...[1000, 3000, 3000, 4000].map((n) => zstdStored(new Uint8Array(n)))];
    const header = concat(spzHeader(4, 1000, 0), new Uint8Array(16));
    header[15] = streams.length;
    new DataView(header.buffer).setUint32(16, 32, true);
    const table = new Uint8Array(streams.length * 16);
    const view = new DataView(table.buffer);
    [9000, 1000, 3000, 3000, 4000].forEach((raw, s) => {
      view.setBigUint64(s * 16, BigInt(streams[s]!.length), true);
      view.setBigUint64(s * 16 + 8, BigInt(raw), true);
    });
    await expectRefused(concat(header, table, ...streams), 'zstd-bomb.spz',
      /^SplatFormatError: SPZ stream 0: its zstd blocks hold more than the 9,000 bytes/, MIB);
  }, IT_MS);
});

describe('SOG decompression bombs', () => {
  it('a 1 MB .sog with a 1000 MiB image entry is refused by the entry\'s stated size, before inflating', async () => {
    const bomb = sogWith(sog.metaJson, sog.files, [{ name: 'means_l.webp', deflated: deflateRun(new Uint8Array(0), 0, 1000) }]);
    expect(bomb.length).toBeLessThan(1.1 * MIB);
    const most = webpByteBound(4 * 50 + 2 ** 20).toLocaleString('en-US');
    await expectRefused(bomb, 'bomb.sog',
      new RegExp(`^SplatFormatError: 'means_l\\.webp' is 1,048,576,000 bytes: more than the ${most} that a WebP image of at most`), MIB);
  }, IT_MS);

  it('an entry that states 2,000 bytes but inflates to 1000 MiB stops inflating at the first slice past them', async () => {
    const bomb = sogWith(sog.metaJson, sog.files, [{ name: 'quats.webp', deflated: deflateRun(new Uint8Array(0), 0, 1000), statedSize: 2000 }]);
    // One 4 KiB slice inflates to at most ~4 MiB, in a buffer fflate doubles to at most 8 MiB.
    await expectRefused(bomb, 'bomb.sog', /^SplatFormatError: The \.sog bundle's entry 'quats\.webp' inflates to more than the 2,000 bytes/, 9 * MIB);
  }, IT_MS);

  it('a valid meta.json padded to 100 MiB is refused as too large, not as bad UTF-8 or JSON', async () => {
    const padded = deflateRun(new TextEncoder().encode(sog.metaJson), 0x20, 100);
    expect(JSON.parse(sog.metaJson + ' '.repeat(1000))).toBeTruthy(); // trailing spaces are valid JSON
    const o = await expectRefused(sogWith(sog.metaJson, sog.files, [{ name: 'meta.json', deflated: padded }]), 'bomb.sog',
      /^SplatFormatError: meta\.json is 104,8\d\d,\d{3} bytes: too large for a SOG meta\.json/, MIB);
    expect(o.message).not.toMatch(/UTF-8|JSON input/);
  }, IT_MS);
});

/** Limits of `n` splats at every degree, and plenty of bytes. */
const splats = (n: number): LoadLimits => ({ maxSplats: [n, n, n, n], maxBytes: 1 << 30 });

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof Error)) throw new Error('expected a rejection');
  return err;
}

describe('counts are checked against the limits before allocating', () => {
  it('SPZ (raw, gzipped, version 4): the limit loads, one more is refused', async () => {
    for (const bytes of [spzPayload({ version: 3, count: 40, shDegree: 1 }), gzipRun(spzPayload({ version: 2, count: 40, shDegree: 1 }), 0, 1),
      spzV4({ count: 40, shDegree: 1 })]) {
      expect((await parseSpz(bytes, { limits: splats(40) })).count).toBe(40);
      const err = await rejection(parseSpz(bytes, { limits: splats(39) }));
      expect(err).toBeInstanceOf(SplatLimitError);
      expect(err.message).toMatch(/^The SPZ header declares 40 splats of SH degree 1: more than the 39 this GPU can draw/);
    }
  });

  it('a gzip-wrapped version 4 file whose stream table is more than maxBytes is refused before it is inflated', async () => {
    const file = spzV4({ count: 40 });
    const limits: LoadLimits = { maxSplats: [40, 40, 40, 40], maxBytes: file.length - 1 };
    const err = await rejection(parseSpz(gzipRun(file, 0, 1), { limits }));
    expect(err).toBeInstanceOf(SplatLimitError);
    expect(err.message).toMatch(/^The decompressed SPZ data its stream table describes is/);
  });

  it('a gzip stream too short to hold what its header declares is refused before its output is allocated', async () => {
    // Deflate expands at most 1032:1: ~1 KB cannot hold the 19 MB that 1,000,000 splats need.
    const err = await rejection(parseSpz(gzipRun(spzHeader(2, 1_000_000, 0), 0, 1)));
    expect(err.message).toMatch(/^SPZ data is truncated: the header's count of 1000000 splats calls for 19000016 bytes, but a \d+-byte gzip stream inflates to at most/);
  });

  it('compressed PLY and ksplat', async () => {
    const cply = compressedPly({ count: 300, shDegree: 1 });
    expect((await loadSplatFile(cply, 'a.ply', { limits: splats(300) })).count).toBe(300);
    const cErr = await rejection(loadSplatFile(cply, 'a.ply', { limits: splats(299) }));
    expect(cErr).toBeInstanceOf(SplatLimitError);
    expect(cErr.message).toMatch(/^The compressed PLY header declares 300 splats of SH degree 1: more than the 299/);

    const ksplat = writeKsplat(parseSplatPly(inriaPly({ count: 40, shDegree: 2 })), { level: 1, bucketSize: 16 }).bytes;
    expect((await loadSplatFile(ksplat, 'a.ksplat', { limits: splats(40) })).count).toBe(40);
    const kErr = await rejection(loadSplatFile(ksplat, 'a.ksplat', { limits: splats(39) }));
    expect(kErr).toBeInstanceOf(SplatLimitError);
    expect(kErr.message).toMatch(/^The \.ksplat header declares 40 splats of SH degree 2: more than the 39/);
  });

  it('SOG: the count in meta.json, before any image is read; the SH degree from shN.bands', async () => {
    let reads = 0;
    const reader = (name: string): Promise<Uint8Array> => {
      reads++;
      return Promise.resolve(sog.files.get(name)!);
    };
    expect((await parseSog(sog.metaJson, reader, { limits: splats(50) })).count).toBe(50);
    reads = 0;
    const limits: LoadLimits = { maxSplats: [50, 49, 49, 49], maxBytes: 1 << 30 };
    const err = await rejection(parseSog(sog.metaJson, reader, { limits }));
    expect(err).toBeInstanceOf(SplatLimitError);
    expect(err.message).toMatch(/^meta\.json's count declares 50 splats of SH degree 1: more than the 49/);
    expect(reads).toBe(0);
    // Without shN.bands the degree is known from the centroids image: refused before the labels are read.
    const meta = JSON.parse(sog.metaJson) as { shN: Record<string, unknown> };
    delete meta.shN['bands'];
    const names: string[] = [];
    const err2 = await rejection(parseSog(JSON.stringify(meta), (name) => { names.push(name); return reader(name); }, { limits }));
    expect(err2.message).toMatch(/^meta\.json's count declares 50 splats of SH degree 1/);
    expect(names.at(-1)).toBe('shN_centroids.webp');
  });

  it('checkSplatCount itself: the most splats pass, one more does not', () => {
    expect(() => checkSplatCount(7, 2, splats(7), 'x')).not.toThrow();
    expect(() => checkSplatCount(8, 2, splats(7), 'x')).toThrow(SplatLimitError);
  });
});

describe('SOG files are read within bounds', () => {
  it('each image is asked for with the most bytes the count allows, and a longer answer is refused', async () => {
    const asked = new Map<string, number>();
    const reader = (name: string, maxBytes: number): Promise<Uint8Array> => {
      asked.set(name, maxBytes);
      return Promise.resolve(sog.files.get(name)!);
    };
    await parseSog(sog.metaJson, reader);
    expect(asked.get('means_l.webp')).toBe(webpByteBound(4 * 50 + 2 ** 20));
    expect(asked.get('shN_centroids.webp')).toBe(webpByteBound(960 * 1024));

    const tooLong = (name: string, maxBytes: number): Promise<Uint8Array> =>
      Promise.resolve(name === 'quats.webp' ? new Uint8Array(maxBytes + 1) : sog.files.get(name)!);
    const err = await rejection(parseSog(sog.metaJson, tooLong));
    expect(err).toBeInstanceOf(SplatFormatError);
    expect(err.message).toMatch(/^'quats\.webp' is [\d,]+ bytes: more than the [\d,]+ that a WebP image of at most 1,048,776 pixels/);

    // Where maxBytes is the tighter bound, passing it is a limit error.
    const small: LoadLimits = { maxSplats: [50, 50, 50, 50], maxBytes: 2000 };
    const err2 = await rejection(parseSog(sog.metaJson, tooLong, { limits: small }));
    expect(err2).toBeInstanceOf(SplatLimitError);
  });

  it('a meta.json over SOG_META_MAX_BYTES is refused as too large before it is parsed', async () => {
    const big = sog.metaJson + ' '.repeat(SOG_META_MAX_BYTES);
    const err = await rejection(parseSog(big, () => Promise.reject(new Error('not read'))));
    expect(err.message).toMatch(/^meta\.json is [\d,]+ bytes: too large for a SOG meta\.json/);
  });

  it('a deflated bundle within bounds still loads, stored and deflated alike', async () => {
    const entries = [...sog.files].map(([name, bytes]) => ({ name, deflated: deflateRunOf(bytes) }));
    const zip = zipArchive([{ name: 'meta.json', stored: new TextEncoder().encode(sog.metaJson) }, ...entries]);
    expect((await parseSogBundle(zip)).count).toBe(50);
  });
});

/** Raw deflate of exactly `bytes`, with the size and CRC a zip states. */
function deflateRunOf(bytes: Uint8Array): Deflated {
  return { data: deflateRawSync(bytes), size: bytes.length, crc: crc32(bytes) >>> 0 };
}
