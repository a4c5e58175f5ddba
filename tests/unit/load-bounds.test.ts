/**
 * The streaming loader under hostile sources: a stream that never ends, a
 * size that lies, a header that declares more than the GPU can draw, a PLY
 * with more data than it declares, and a load that is cancelled. Each is
 * refused (or finishes with a warning) as soon as it passes its bound, and
 * the tests count what was read from the source to show that the loader
 * stopped pulling there.
 */
import { describe, expect, it } from 'vitest';
import {
  boundByMemory, checkByteCount, checkSplatCount, DEFAULT_LOAD_LIMITS, HOST_MEMORY_SHARE, MAX_LOAD_HOLD_BYTES, PREVIEW_SHARE, previewSplatLimit,
  SplatLimitError, type LoadLimits,
} from '../../src/io/load-limits';
import { heldBytesPerSplat, loadLimitsFor } from '../../src/render/renderer-limits';
import { SPLAT } from '../../src/scene/splat-layouts';
import { PLY_TRAILING_READ_LIMIT } from '../../src/io/ply/stream';
import { parseSplatPly, SplatFormatError } from '../../src/io/ply/parse';
import { resolveSceneUrl } from '../../src/io/scene-url';
import { chunksOf, streamChunks } from '../../src/io/source-bytes';
import { loadSplatStream } from '../../src/io/splat-stream';
import { chunkLayout, MAX_CHUNKS } from '../../src/scene/gpu-splats';
import { PROJECTED_SPLAT } from '../../src/render/frame-layouts';
import { concat, inriaPly, splatFile } from '../support/splat-files';

/** Limits of a small GPU: 1,000 splats of any degree, 1 MiB per file. */
const SMALL: LoadLimits = { maxSplats: [1000, 1000, 1000, 1000], maxBytes: 2 ** 20 };

/** Counts the chunks and bytes a loader pulls from a source. */
class Source {
  chunks = 0;
  bytes = 0;
  constructor(private readonly make: () => Iterator<Uint8Array>) {}

  *[Symbol.iterator](): Generator<Uint8Array> {
    const inner = this.make();
    for (;;) {
      const next = inner.next();
      if (next.done) return;
      this.chunks++;
      this.bytes += next.value.length;
      yield next.value;
    }
  }
}

/** `head`, then `filler` repeated for ever (a server that never ends the body). */
function endless(head: Uint8Array, filler: Uint8Array): () => Iterator<Uint8Array> {
  return function* () {
    yield head;
    for (;;) yield filler;
  };
}

const KB64 = 65536;

describe('load limits from the device', () => {
  it('follow the chunked layout (MAX_CHUNKS chunks of the largest power of two that fits a buffer) and the one record buffer', () => {
    const limits = loadLimitsFor(128 * 2 ** 20);
    const records = (128 * 2 ** 20) / PROJECTED_SPLAT.size;
    for (const degree of [0, 1, 2, 3] as const) {
      expect(limits.maxSplats[degree]).toBe(Math.min(records, MAX_CHUNKS * chunkLayout(1, degree, 128 * 2 ** 20).chunkSplats));
    }
    // 128 MiB: 4.2M splats of SH degree 0 (the projector's 32-byte records
    // fill the buffer; the chunks would hold 8.4M), 2.1M of degree 3
    // (64 + 92 bytes each: the SH as half floats).
    expect(limits.maxSplats[0]).toBe(2 ** 22);
    expect(limits.maxSplats[3]).toBe(4 * 2 ** 19);
    // The largest file is an INRIA PLY of the most SH-0 splats, 68 bytes a row.
    expect(limits.maxBytes).toBeGreaterThanOrEqual(limits.maxSplats[0] * 68);
    expect(DEFAULT_LOAD_LIMITS).toEqual(limits);
    expect(loadLimitsFor(2 ** 31).maxSplats[3]).toBe(16 * limits.maxSplats[3]);
    expect(loadLimitsFor(2 ** 31).maxSplats[0]).toBe(2 ** 31 / PROJECTED_SPLAT.size);
  });
});

describe('load limits from the machine\'s memory', () => {
  const GIB = 2 ** 30;
  const gpu2g = loadLimitsFor(2 ** 31);
  const held = heldBytesPerSplat();

  it('hold per splat the decoded floats 3.5 times and the GPU records twice', () => {
    // SH 0: 56 bytes of floats; 64 (scene) + 32 (projected) + 16 (sort) on the GPU.
    expect(SPLAT.size).toBe(64);
    expect(held[0]).toBe(3.5 * 56 + 2 * (64 + 32 + 16));
    // SH 3: 45 more floats each side.
    expect(held[3]).toBe(3.5 * (56 + 180) + 2 * (64 + 180 + 32 + 16));
  });

  it('are decided by the memory where it is the smaller: an 8 GiB machine with a 2 GiB binding', () => {
    const limits = boundByMemory(gpu2g, 8 * GIB, held);
    const budget = 8 * GIB * HOST_MEMORY_SHARE;
    expect(limits.memory).toEqual({ hostBytes: 8 * GIB, budgetBytes: budget, maxSplats: held.map((b) => Math.floor(budget / b)) });
    for (const d of [0, 1, 2, 3] as const) {
      expect(limits.maxSplats[d]).toBe(Math.min(gpu2g.maxSplats[d], Math.floor(budget / held[d])));
    }
    // The GPU takes 67M splats of SH 0; 4 GiB at 420 bytes a splat hold 10.2M.
    expect(gpu2g.maxSplats[0]).toBe(2 ** 26);
    expect(limits.maxSplats[0]).toBe(Math.floor(4 * GIB / 420));
    expect(limits.maxBytes).toBe(Math.min(gpu2g.maxBytes, budget));
  });

  it('are the GPU\'s where the memory allows more, and then say "this GPU"', () => {
    const small = loadLimitsFor(128 * 2 ** 20);
    const limits = boundByMemory(small, 8 * GIB, held);
    expect(limits.maxSplats[3]).toBe(small.maxSplats[3]);
    expect(limits.maxSplats[0]).toBe(small.maxSplats[0]);
    expect(() => checkSplatCount(small.maxSplats[3] + 1, 3, limits, 'The file holds at least')).toThrow(/this GPU can draw$/);
  });

  it('never let a load hold more than the ceiling, however large the memory', () => {
    const limits = boundByMemory(gpu2g, 512 * GIB, held);
    expect(limits.memory!.budgetBytes).toBe(MAX_LOAD_HOLD_BYTES);
    expect(limits.maxSplats[0]).toBe(Math.floor(MAX_LOAD_HOLD_BYTES / held[0]));
    expect(() => checkSplatCount(limits.maxSplats[0] + 1, 0, limits, 'The file holds at least')).toThrow(
      `more than the ${limits.maxSplats[0].toLocaleString('en-US')} that fit in the 16 GiB a load may hold at most, whatever the memory`,
    );
  });

  it('say which bound a stream passed, and from what memory', async () => {
    // 0.5 GiB: a load may hold 256 MiB, 639,132 splats of SH 0.
    const limits = boundByMemory(gpu2g, GIB / 2, held);
    expect(limits.maxSplats[0]).toBe(Math.floor(2 ** 28 / held[0]));
    const source = new Source(endless(splatFile(64), splatFile(65536)));
    const load = loadSplatStream(source, { name: 'endless.splat', limits });
    await expect(load).rejects.toThrow(SplatLimitError);
    await expect(load).rejects.toThrow(new RegExp(
      `^The file holds at least [\\d,]+ splats of SH degree 0: more than the ${limits.maxSplats[0].toLocaleString('en-US')} ` +
        'that fit in the 0\\.25 GiB a load may hold of this device\'s memory \\(0\\.5 GiB\\)$',
    ));
    // It stopped at the first chunk past the bound.
    expect(source.bytes).toBeLessThanOrEqual(32 * (limits.maxSplats[0] + 64 + 65536));
    // A gathered file's bytes count against the same budget.
    expect(() => checkByteCount(2 ** 28 + 1, limits, 'The file')).toThrow(
      'The file is 256 MiB: more than the 0.25 GiB a load may hold of this device\'s memory (0.5 GiB)',
    );
  });

  it('let previews grow to a quarter of the bound', () => {
    const limits = boundByMemory(gpu2g, 8 * GIB, held);
    expect(PREVIEW_SHARE).toBe(1 / 4);
    for (const d of [0, 1, 2, 3] as const) expect(previewSplatLimit(limits, d)).toBe(Math.floor(limits.maxSplats[d] / 4));
  });
});

describe('a stream that never ends', () => {
  it('of .splat records is refused once it passes the most splats the GPU can draw', async () => {
    const source = new Source(endless(splatFile(64), splatFile(2048)));
    const load = loadSplatStream(source, { name: 'endless.splat', limits: SMALL });
    await expect(load).rejects.toThrow(SplatLimitError);
    await expect(load).rejects.toThrow(/at least .* splats of SH degree 0: more than the 1,000 this GPU can draw/);
    // 64 + 2048 records pass 1,000: it stopped at the first chunk past the bound.
    expect(source.chunks).toBe(2);
    await expect(load).rejects.toThrow('The file holds at least 2,112 splats');
  });

  it('of a gathered format is refused once it passes the byte budget', async () => {
    // An SPZ (gzip) start: gathered whole, so bounded by bytes, not splats.
    const gzipStart = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, ...new Array(4096).fill(0)]);
    const source = new Source(endless(gzipStart, new Uint8Array(KB64)));
    await expect(loadSplatStream(source, { name: 'endless.spz', limits: SMALL })).rejects.toThrow(
      /The file is .*: more than the 1\.0 MiB/,
    );
    expect(source.bytes).toBeLessThanOrEqual(SMALL.maxBytes + KB64 + gzipStart.length);
  });

  it('of PLY bytes after the declared rows loads the rows, stops reading, and warns', async () => {
    const ply = inriaPly({ count: 100 });
    const source = new Source(endless(ply, new Uint8Array(KB64)));
    const warnings: string[] = [];
    const cloud = await loadSplatStream(source, { name: 'endless.ply', limits: SMALL, onWarning: (w) => warnings.push(w) });
    expect(cloud.count).toBe(100);
    expect(source.bytes - ply.length).toBeLessThanOrEqual(PLY_TRAILING_READ_LIMIT + KB64);
    expect(warnings).toEqual([expect.stringMatching(/holds more than 4 MiB after the 100 splats its header declares/)]);
  });
});

describe('sizes and counts that lie', () => {
  it('refuses a PLY header that declares more splats than the GPU can draw before reading a row', async () => {
    const ply = inriaPly({ count: 10, declaredCount: 5000 });
    const source = new Source(() => chunksOf(ply, 256));
    await expect(loadSplatStream(source, { name: 'big.ply', limits: SMALL })).rejects.toThrow(
      /The PLY header declares 5,000 splats of SH degree 0: more than the 1,000 this GPU can draw/,
    );
    // Only the chunks holding the header were read.
    expect(source.bytes).toBeLessThan(2048);
  });

  it('refuses a gathered file whose announced size is over the budget before allocating it', async () => {
    const gzipStart = new Uint8Array([0x1f, 0x8b, 8, 0, ...new Array(5000).fill(0)]);
    await expect(loadSplatStream([gzipStart], { name: 'a.spz', totalBytes: 2 ** 40, limits: SMALL })).rejects.toThrow(
      /The file is 1048576 MiB: more than the 1\.0 MiB/,
    );
  });

  it('says in words when memory for an announced size cannot be had', async () => {
    // A budget no machine has: the allocation itself fails, and the message says what it was for.
    const huge: LoadLimits = { maxSplats: [2 ** 40, 2 ** 40, 2 ** 40, 2 ** 40], maxBytes: 2 ** 60 };
    const gzipStart = new Uint8Array([0x1f, 0x8b, 8, 0, ...new Array(5000).fill(0)]);
    const load = loadSplatStream([gzipStart], { name: 'a.spz', totalBytes: 2 ** 50, limits: huge });
    await expect(load).rejects.toThrow(SplatLimitError);
    await expect(load).rejects.toThrow(/^Could not allocate 1073741824 MiB for the file: /);
    await expect(loadSplatStream([splatFile(1)], { name: 'a.splat', totalBytes: 32 * 2 ** 40, limits: huge })).rejects.toThrow(
      /^Could not allocate memory for 1,099,511,627,776 splats of SH degree 0: /,
    );
  });

  it('refuses a .splat whose announced size holds more splats than the GPU can draw', async () => {
    await expect(loadSplatStream([splatFile(10)], { name: 'a.splat', totalBytes: 32 * 5000, limits: SMALL })).rejects.toThrow(
      /The .splat file holds 5,000 splats/,
    );
  });

  it('refuses a source that delivers more bytes than it announced', async () => {
    const bytes = splatFile(10);
    await expect(loadSplatStream([bytes, splatFile(1)], { name: 'a.splat', totalBytes: bytes.length })).rejects.toThrow(
      /longer than the 320 bytes announced/,
    );
  });

  it('still loads a scene of exactly the most splats the GPU can draw', async () => {
    const cloud = await loadSplatStream(chunksOf(splatFile(1000), 4096), { name: 'a.splat', limits: SMALL });
    expect(cloud.count).toBe(1000);
  });
});

describe('a PLY with more data than its header declares', () => {
  it('loads the declared splats and says how many bytes were left over, reading none of them', async () => {
    const ply = inriaPly({ count: 50 });
    const extra = new Uint8Array(10_000);
    const file = concat(ply, extra);
    const source = new Source(() => chunksOf(file, 1024));
    const warnings: string[] = [];
    const cloud = await loadSplatStream(source, { name: 'extra.ply', totalBytes: file.length, onWarning: (w) => warnings.push(w) });
    expect(cloud.count).toBe(50);
    expect(warnings).toEqual([
      'The PLY file holds 10,000 bytes after the 50 splats its header declares. ' +
        'They were ignored: the file may be damaged, or written by a tool that miscounted.',
    ]);
    // The size is known, so the extra bytes are not downloaded.
    expect(source.bytes).toBeLessThan(ply.length + 1024);
  });

  it('says the same when parsed from memory, and nothing for an exact file', () => {
    const warnings: string[] = [];
    parseSplatPly(concat(inriaPly({ count: 5 }), new Uint8Array(7)), { onWarning: (w) => warnings.push(w) });
    parseSplatPly(inriaPly({ count: 5 }), { onWarning: (w) => warnings.push(w) });
    expect(warnings).toEqual([expect.stringContaining('holds 7 bytes after the 5 splats')]);
  });

  it('does not count an element the header declares after the vertices as extra', () => {
    const ply = inriaPly({ count: 5 });
    const text = new TextDecoder().decode(ply.subarray(0, 2000));
    const withFaces = text.replace('end_header\n', 'element extra 3\nproperty uchar flag\nend_header\n');
    const headerEnd = text.indexOf('end_header\n') + 'end_header\n'.length;
    const bytes = concat(new TextEncoder().encode(withFaces.slice(0, withFaces.indexOf('end_header\n') + 11)), ply.subarray(headerEnd), new Uint8Array(3));
    const warnings: string[] = [];
    expect(parseSplatPly(bytes, { onWarning: (w) => warnings.push(w) }).count).toBe(5);
    expect(warnings).toEqual([]);
  });
});

describe('cancelling a load', () => {
  it('rejects with the abort reason and reads no further chunk', async () => {
    const controller = new AbortController();
    let pulled = 0;
    const ply = inriaPly({ count: 2000 });
    async function* arriving(): AsyncGenerator<Uint8Array> {
      for (const chunk of chunksOf(ply, 4096)) {
        pulled++;
        if (pulled === 3) controller.abort(new DOMException('cancelled by the test', 'AbortError'));
        yield chunk;
      }
    }
    await expect(loadSplatStream(arriving(), { name: 'a.ply', signal: controller.signal })).rejects.toThrow('cancelled by the test');
    expect(pulled).toBe(3);
  });

  it('cancels the underlying ReadableStream (a download) when the reader stops early', async () => {
    let cancelled: unknown = 'not cancelled';
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(KB64));
      },
      cancel(reason) {
        cancelled = reason;
      },
    }, { highWaterMark: 0 });
    const ply = inriaPly({ count: 10 });
    const prefixed = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(ply);
      },
      async pull(controller) {
        const { value } = await reader.read();
        controller.enqueue(value!);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
    const reader = stream.getReader();
    // The PLY has all it needs once its rows are in and its size is known.
    const cloud = await loadSplatStream(streamChunks(prefixed), { name: 'a.ply', totalBytes: ply.length + 10 * KB64 });
    expect(cloud.count).toBe(10);
    expect(cancelled).toBeUndefined();
    expect(pulls).toBeLessThanOrEqual(2);
  });
});

describe('a stream read to its end', () => {
  it('is not cancelled once all the bytes it announced have arrived (a browser counts that as an aborted download)', async () => {
    const ply = inriaPly({ count: 10 });
    let cancelled = false;
    let given = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // All of the file, then the end on the next read.
        if (given) controller.close();
        else controller.enqueue(ply);
        given = true;
      },
      cancel() {
        cancelled = true;
      },
    }, { highWaterMark: 0 });
    const cloud = await loadSplatStream(streamChunks(stream), { name: 'a.ply', totalBytes: ply.length });
    expect(cloud.count).toBe(10);
    expect(cancelled).toBe(false);
  });
});

describe('scene addresses', () => {
  const page = 'http://viewer.test/app/?url=x';
  it('resolves http(s) links, relative ones against the page, and blob: URLs', () => {
    expect(resolveSceneUrl('scenes/a.ply', page)).toBe('http://viewer.test/app/scenes/a.ply');
    expect(resolveSceneUrl('https://cdn.test/b.spz?v=1', page)).toBe('https://cdn.test/b.spz?v=1');
    expect(resolveSceneUrl('blob:http://viewer.test/0b8e', page)).toBe('blob:http://viewer.test/0b8e');
  });

  it('refuses malformed addresses and other schemes with a message that names them', () => {
    expect(() => resolveSceneUrl('http://[', page)).toThrow(SplatFormatError);
    expect(() => resolveSceneUrl('http://[', page)).toThrow('The scene address "http://[" is not a valid URL');
    for (const address of ['javascript:alert(1)', 'file:///etc/passwd', 'data:text/plain,ply', 'ftp://host/a.ply']) {
      expect(() => resolveSceneUrl(address, page)).toThrow(/uses ".*:": only http, https and blob URLs are opened/);
    }
  });
});
