import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { parseSplatPly, SplatFormatError } from '../../src/io/ply/parse';
import { chunksOf, streamChunks } from '../../src/io/source-bytes';
import { loadSplatStream } from '../../src/io/splat-stream';
import { parseSplatFormat, SplatRecordStream } from '../../src/io/splat/parse';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { expectSameCloud } from '../support/clouds';


/** Chunks of pseudo-random sizes in [1, max], deterministic. */
function* randomChunks(bytes: Uint8Array, max: number, seed = 7): Generator<Uint8Array> {
  let state = seed;
  for (let at = 0; at < bytes.length;) {
    state = (state * 1103515245 + 12345) >>> 0;
    const size = 1 + (state % max);
    yield bytes.subarray(at, Math.min(bytes.length, at + size));
    at += size;
  }
}

/** Copies each chunk into a fresh buffer, as a network stream delivers them (odd offsets included). */
function* freshCopies(chunks: Iterable<Uint8Array>): Generator<Uint8Array> {
  for (const chunk of chunks) {
    const copy = new Uint8Array(chunk.length + 1);
    copy.set(chunk, 1);
    yield copy.subarray(1);
  }
}

describe('loadSplatStream on INRIA PLY', () => {
  let bytes: Uint8Array;
  let whole: SplatCloud;
  beforeAll(() => {
    bytes = readFileSync(scenePath('inria_kacytran_iter7000_9k_sh3.ply'));
    whole = parseSplatPly(bytes);
  });

  it.each([
    ['64 KiB chunks', 65536],
    ['4093-byte chunks (rows split across chunks)', 4093],
    ['247-byte chunks (less than a row)', 247],
  ])('decodes %s exactly as the whole file', async (_, size) => {
    const cloud = await loadSplatStream(freshCopies(chunksOf(bytes, size)), { name: 'a.ply', totalBytes: bytes.length });
    expectSameCloud(cloud, whole);
  });

  it('decodes chunks of random sizes (1 to 300 bytes, odd offsets) with no size given', async () => {
    const cloud = await loadSplatStream(freshCopies(randomChunks(bytes, 300)), { name: 'a.ply' });
    expectSameCloud(cloud, whole);
  });

  it('decodes the rows while the bytes arrive, not after the last one', async () => {
    const fractions: number[] = [];
    let seenAtSixty = -1;
    async function* slowly(): AsyncGenerator<Uint8Array> {
      let sent = 0;
      for (const chunk of chunksOf(bytes, 32768)) {
        if (seenAtSixty < 0 && sent > bytes.length * 0.6) seenAtSixty = fractions[fractions.length - 1] ?? 0;
        sent += chunk.length;
        await Promise.resolve();
        yield chunk;
      }
    }
    // No size: progress is the rows decoded so far.
    await loadSplatStream(slowly(), { name: 'a.ply', onProgress: (_, f) => fractions.push(f) });
    expect(seenAtSixty).toBeGreaterThan(0.5);
    expect(fractions[fractions.length - 1]).toBe(1);
  });

  it('reads a web ReadableStream', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunksOf(bytes, 100_000)) controller.enqueue(chunk.slice());
        controller.close();
      },
    });
    const stages = new Set<string>();
    const cloud = await loadSplatStream(streamChunks(stream), { name: 'a.ply', totalBytes: bytes.length, onProgress: (s) => stages.add(s) });
    expectSameCloud(cloud, whole);
    expect([...stages]).toEqual(['read']);
  });

  it('names a file that ends early, after the rows it holds', async () => {
    const cut = bytes.subarray(0, bytes.length - 1000);
    await expect(loadSplatStream(chunksOf(cut, 4096), { name: 'a.ply' })).rejects.toThrow(
      /PLY file is truncated: the header declares 9,080 splats, the data ends after 9,075 and \d+ bytes/,
    );
  });

  it('refuses a vertex count beyond the known size before reading the rows', async () => {
    const text = Buffer.from(bytes.subarray(0, 2000)).toString('latin1').replace('element vertex 9080', 'element vertex 1099511627776');
    const lying = new Uint8Array([...Buffer.from(text, 'latin1'), ...bytes.subarray(2000)]);
    let pulled = 0;
    function* counted(): Generator<Uint8Array> {
      for (const chunk of chunksOf(lying, 4096)) {
        pulled++;
        yield chunk;
      }
    }
    const error = await loadSplatStream(counted(), { name: 'a.ply', totalBytes: lying.length }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SplatFormatError);
    expect((error as Error).message).toMatch(/vertex count 1,099,511,627,776 is larger than the data: the file holds only 9,080 rows/);
    expect(pulled).toBe(1);
  });

  it('with no size known, a count beyond what the GPU can draw is refused at the header', async () => {
    const text = Buffer.from(bytes.subarray(0, 2000)).toString('latin1').replace('element vertex 9080', 'element vertex 1099511627776');
    const lying = new Uint8Array([...Buffer.from(text, 'latin1'), ...bytes.subarray(2000)]);
    await expect(loadSplatStream(chunksOf(lying, 65536), { name: 'a.ply' })).rejects.toThrow(
      /The PLY header declares 1,099,511,627,776 splats of SH degree 3: more than the 2,097,152 this GPU can draw/,
    );
  });

  it('with no size known, a lying count the GPU could draw fails at the end without allocating for it', async () => {
    const text = Buffer.from(bytes.subarray(0, 2000)).toString('latin1').replace('element vertex 9080', 'element vertex 2000000');
    const lying = new Uint8Array([...Buffer.from(text, 'latin1'), ...bytes.subarray(2000)]);
    await expect(loadSplatStream(chunksOf(lying, 65536), { name: 'a.ply' })).rejects.toThrow(
      /declares 2,000,000 splats, the data ends after 9,080/,
    );
  });
});

describe('loadSplatStream on .splat records', () => {
  let bytes: Uint8Array;
  let whole: SplatCloud;
  beforeAll(() => {
    bytes = readFileSync(scenePath('justdealman_model.splat'));
    whole = parseSplatFormat(bytes);
  });

  it('decodes records split across chunks of random sizes, with and without the size', async () => {
    expectSameCloud(await loadSplatStream(freshCopies(randomChunks(bytes, 5000)), { name: 'm.splat', totalBytes: bytes.length }), whole);
    expectSameCloud(await loadSplatStream(freshCopies(randomChunks(bytes, 5000, 3)), { name: 'm.splat' }), whole);
  });

  it('decodes the records as they arrive', () => {
    const stream = new SplatRecordStream({ totalBytes: bytes.length });
    stream.push(bytes.subarray(0, 1_000_001));
    expect(stream.decodedRecords).toBe(Math.floor(1_000_001 / 32));
    stream.push(bytes.subarray(1_000_001));
    expectSameCloud(stream.finish(), whole);
  });

  it('names a stream that ends short of its announced size, or inside a record', async () => {
    await expect(loadSplatStream(chunksOf(bytes.subarray(0, 64_000), 4096), { name: 'm.splat', totalBytes: bytes.length }))
      .rejects.toThrow(/\.splat file is truncated: 3729568 bytes were announced, 64000 arrived/);
    await expect(loadSplatStream(chunksOf(bytes.subarray(0, 64_010), 4096), { name: 'm.splat' }))
      .rejects.toThrow(/64010 bytes, not a multiple of the 32-byte record: 2000 whole splats and 10 bytes left over/);
  });
});

describe('loadSplatStream on the other formats', () => {
  it.each([
    ['playcanvas_biker.compressed.ply'],
    ['playcanvas_biker_v4.spz'],
    ['justdealman_model.splat'],
  ])('%s streamed gives what loadSplatFile gives', async (file) => {
    const bytes = readFileSync(scenePath(file));
    const stages = new Set<string>();
    const streamed = await loadSplatStream(freshCopies(chunksOf(bytes, 50_000)), {
      name: file, totalBytes: bytes.length, onProgress: (s) => stages.add(s),
    });
    expectSameCloud(streamed, await loadSplatFile(bytes, file));
    expect(stages.has('read')).toBe(true);
  });

  it('stops at the first few KB of a file in no known format', async () => {
    let pulled = 0;
    function* zeros(): Generator<Uint8Array> {
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield new Uint8Array(1024);
      }
    }
    await expect(loadSplatStream(zeros(), { name: 'video.mp4' })).rejects.toThrow(/Unrecognised splat file/);
    expect(pulled).toBeLessThanOrEqual(4);
  });

  it('refuses a PLY header that never ends', async () => {
    function* endless(): Generator<Uint8Array> {
      yield new TextEncoder().encode('ply\nformat binary_little_endian 1.0\n');
      for (let i = 0; i < 40; i++) yield new TextEncoder().encode('comment '.padEnd(65536, 'x') + '\n');
    }
    await expect(loadSplatStream(endless(), { name: 'a.ply' })).rejects.toThrow(/no "end_header" line in the first 1024 KB/);
  });

  it('reads a tiny .splat that ends before the format could be sniffed', async () => {
    const bytes = readFileSync(scenePath('justdealman_model.splat')).subarray(0, 64);
    const cloud = await loadSplatStream([bytes.subarray(0, 10), bytes.subarray(10)], { name: 'two.splat' });
    expect(cloud.count).toBe(2);
  });
});
