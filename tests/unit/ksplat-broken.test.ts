/**
 * What is not a well-formed .ksplat: looksLikeKsplat tells the files the
 * writer wrote from every other kind of file (the real scenes, random
 * bytes, archives, a file one byte short), and parseKsplat refuses broken
 * files (truncated anywhere, lying versions, levels, counts and ranges,
 * random corruption) with a SplatFormatError that says what is wrong,
 * before allocating for a lying count.
 */
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseKsplat } from '../../src/io/ksplat/decode';
import { looksLikeKsplat } from '../../src/io/ksplat/layout';
import { SplatFormatError } from '../../src/io/ply/parse';
import type { ShDegree, SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { expectFormatError } from '../support/format-errors';
import { syntheticCloud, writeKsplat, type WrittenKsplat } from '../support/ksplat-writer';
import { rng } from '../support/splat-files';

const REAL_SCENES = [
  'inria_kacytran_iter7000_9k_sh3.ply',
  'inria_karangkidul_150k_sh3_decoded.ply',
  'inria_karangkidul_1M_sh0_decoded.ply',
  'justdealman_model.splat',
  'playcanvas_biker.compressed.ply',
  'playcanvas_biker_v4.spz',
];
const LEVELS = [0, 1, 2] as const;
const DEGREES: ShDegree[] = [0, 1, 2, 3];

let synthetic: SplatCloud;
beforeAll(() => {
  synthetic = syntheticCloud(2000, 7);
});

describe('looksLikeKsplat', () => {
  it('is true for files the writer wrote, at every level and degree', () => {
    for (const level of LEVELS) {
      for (const degree of DEGREES) {
        expect(looksLikeKsplat(writeKsplat(synthetic, { level, shDegree: degree, bucketSize: 64 }).bytes)).toBe(true);
      }
      expect(looksLikeKsplat(writeKsplat(synthetic, { level, sections: [{ count: 1000 }, { count: 1000 }] }).bytes)).toBe(true);
    }
  });

  it('is false for every real scene file (PLY, compressed PLY, SPZ, .splat)', () => {
    for (const name of REAL_SCENES) {
      expect(looksLikeKsplat(readFileSync(scenePath(name))), name).toBe(false);
    }
  });

  it('is false for a .splat file even when its first bytes are forged into version 0.1', () => {
    const splat = new Uint8Array(readFileSync(scenePath('justdealman_model.splat')));
    splat.set([0, 1, 0, 0], 0);
    expect(looksLikeKsplat(splat)).toBe(false);
  });

  it('is false for random bytes, zip, gzip and short or empty input', () => {
    const next = rng(11);
    for (const size of [0, 10, 4095, 4096, 5120, 9000, 100_000]) {
      for (let trial = 0; trial < 20; trial++) {
        const bytes = new Uint8Array(size);
        for (let k = 0; k < size; k++) bytes[k] = Math.floor(next() * 256);
        expect(looksLikeKsplat(bytes)).toBe(false);
        // Even with the version bytes right, random counts do not add up.
        if (size >= 4) {
          bytes.set([0, 1, 0, 0], 0);
          expect(looksLikeKsplat(bytes)).toBe(false);
        }
      }
    }
    const zip = new Uint8Array(8192);
    zip.set([0x50, 0x4b, 0x03, 0x04]);
    expect(looksLikeKsplat(zip)).toBe(false);
    expect(looksLikeKsplat(gzipSync(writeKsplat(synthetic, { level: 1 }).bytes))).toBe(false);
    expect(looksLikeKsplat(new Uint8Array(8192))).toBe(false); // all zeros: version 0.0
  });

  it('is false for a written file truncated by one byte', () => {
    const bytes = writeKsplat(synthetic, { level: 2 }).bytes;
    expect(looksLikeKsplat(bytes.subarray(0, bytes.length - 1))).toBe(false);
  });
});

describe('parseKsplat on broken files', () => {
  let written: WrittenKsplat;
  let bytes: Uint8Array;
  beforeAll(() => {
    written = writeKsplat(synthetic, {
      level: 1, bucketSize: 16, blockSize: 4,
      sections: [{ count: 600 }, { count: 400 }, { count: 1000 }],
    });
    bytes = written.bytes;
  });

  /** A copy of the file with some fields changed. */
  function patched(edit: (view: DataView) => void, source: Uint8Array = bytes): Uint8Array {
    const copy = source.slice();
    edit(new DataView(copy.buffer));
    return copy;
  }

  it('truncated inside the main header', () => {
    for (const length of [0, 1, 100, 4095]) {
      expectFormatError(() => parseKsplat(bytes.subarray(0, length)), new RegExp(`is ${length} bytes, shorter than its 4096-byte header`));
    }
  });

  it('truncated inside the section headers', () => {
    for (const length of [4096, 4096 + 512, 4096 + 1024, 4096 + 2048, 4096 + 3072 - 1]) {
      expectFormatError(() => parseKsplat(bytes.subarray(0, length)), /section headers are truncated/, /3 section headers need bytes 4096\.\.7168/);
    }
  });

  it('truncated at every section boundary names the section that is cut', () => {
    written.sectionStarts.forEach((start, s) => {
      expectFormatError(() => parseKsplat(bytes.subarray(0, start)), new RegExp(`section ${s} is truncated`), /but the file has \d+ bytes/);
    });
  });

  it('truncated inside a section: bucket lengths, bucket centres, splats, last byte', () => {
    written.sectionParts.forEach((part, s) => {
      const cuts = [part.lengthsAt + 2, part.centresAt + 5, part.splatsAt, part.splatsAt + 13, part.end - 1];
      for (const cut of cuts) {
        expectFormatError(() => parseKsplat(bytes.subarray(0, cut)), new RegExp(`section ${s} is truncated`), new RegExp(`file has ${cut} bytes`));
      }
    });
  });

  it('a level 0 file cut mid-splat', () => {
    const level0 = writeKsplat(synthetic, { level: 0 }).bytes;
    expectFormatError(() => parseKsplat(level0.subarray(0, level0.length - 30)), /section 0 is truncated/);
  });

  it('an unsupported version', () => {
    expectFormatError(() => parseKsplat(patched((v) => v.setUint8(0, 1))), /version 1\.1 is not supported/);
    expectFormatError(() => parseKsplat(patched((v) => v.setUint8(1, 0))), /version 0\.0 is not supported/);
    expectFormatError(() => parseKsplat(patched((v) => v.setUint8(1, 2))), /version 0\.2 is not supported/);
  });

  it('an unknown compression level', () => {
    expectFormatError(() => parseKsplat(patched((v) => v.setUint16(20, 7, true))), /compression level 7 is unknown/);
    expectFormatError(() => parseKsplat(patched((v) => v.setUint16(20, 65535, true))), /compression level 65535 is unknown/);
  });

  it('lying splat counts, up to 2^31, fail before anything is allocated', () => {
    const big = 2 ** 31;
    // Header splat count beyond its max.
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(16, big, true))),
      /counts are inconsistent/, /splat count 2147483648 exceeds the max splat count 2000/);
    // Both header counts: the sections do not add up to it.
    expectFormatError(() => parseKsplat(patched((v) => { v.setUint32(12, big, true); v.setUint32(16, big, true); })),
      /counts are inconsistent/, /header says 2147483648 splats/, /sections hold 2000/);
    // A section's counts: its data would lie far beyond the file.
    expectFormatError(() => parseKsplat(patched((v) => { v.setUint32(4096, big, true); v.setUint32(4100, big, true); })),
      /section 0 is truncated or its counts are wrong: 2147483648 splats/);
    expectFormatError(() => parseKsplat(patched((v) => { v.setUint32(4096 + 1024, 0xffffffff, true); v.setUint32(4100 + 1024, 0xffffffff, true); })),
      /section 1 is truncated or its counts are wrong: 4294967295 splats/);
    // A section's splat count beyond its own max.
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(4096 + 2048, 1001, true))),
      /section 2 counts are inconsistent: splat count 1001 exceeds its max splat count 1000/);
    // Section counts that do not add up to the header's.
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(4096, 599, true))), /header says 2000 splats/, /sections hold 1999/);
  });

  it('lying section counts', () => {
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(4, 2 ** 31, true))),
      /section headers are truncated: 2147483648 section headers/);
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(4, 0, true))), /declares no sections/);
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(8, 4, true))),
      /section count 4 exceeds the max section count 3/);
    // One section header fewer: the data of "section 2" is now misread, and the totals disagree.
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(4, 2, true))), /counts are inconsistent|section \d/);
  });

  it('lying bucket counts', () => {
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(4096 + 36, 2 ** 30, true))),
      /section 0 is truncated or its counts are wrong/);
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(4096 + 12, 2 ** 31, true))),
      /section 0 is truncated or its counts are wrong/);
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(4096 + 8, 1, true))),
      /section 0 bucket counts are inconsistent: its buckets hold \d+ splats, but it has 600/);
    expectFormatError(() => parseKsplat(patched((v) => v.setUint32(4096 + 32, v.getUint32(4096 + 32, true) + 1, true))),
      /section 0 bucket counts are inconsistent: \d+ full and \d+ partially filled buckets, but only \d+ bucket centres/);
    expectFormatError(() => parseKsplat(patched((v) => v.setUint16(4096 + 20, 16, true))),
      /section 0 is truncated|section 0 stores buckets in 16 bytes/);
    expectFormatError(() => parseKsplat(patched((v) => v.setFloat32(4096 + 16, NaN, true))), /section 0 has a bucket block size of NaN/);
  });

  it('an SH degree above 3', () => {
    expectFormatError(() => parseKsplat(patched((v) => v.setUint16(4096 + 1024 + 40, 4, true))), /section 1 has SH degree 4/);
  });

  it('a level 2 file with an empty SH range', () => {
    const level2 = writeKsplat(synthetic, { level: 2, shDegree: 1 }).bytes;
    expectFormatError(() => parseKsplat(patched((v) => { v.setFloat32(36, 1, true); v.setFloat32(40, 1, true); }, level2)),
      /SH range 1\.\.1/);
    expectFormatError(() => parseKsplat(patched((v) => v.setFloat32(40, Infinity, true), level2)), /SH range/);
  });

  it('a file with no splats', () => {
    const empty = patched((v) => {
      for (let s = 0; s < 3; s++) v.setUint32(4096 + 1024 * s, 0, true);
      v.setUint32(16, 0, true);
    });
    expectFormatError(() => parseKsplat(empty), /holds 0 splats/);
  });

  it('random corruption of the headers and bucket lengths only ever gives a SplatFormatError', () => {
    const next = rng(99);
    const level2 = writeKsplat(synthetic, { level: 2, bucketSize: 16, sections: [{ count: 1500 }, { count: 500 }] }).bytes;
    const sources = [bytes, level2];
    let errors = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const source = sources[trial % 2]!;
      const copy = source.slice();
      const edits = 1 + Math.floor(next() * 3);
      for (let e = 0; e < edits; e++) {
        // Mostly the fields that matter; sometimes anywhere in the headers or the first bucket lengths.
        const fields = [0, 1, 4, 5, 7, 8, 12, 14, 16, 18, 19, 20, 21, 36, 39, 40, 43, 4096, 4099, 4100, 4103, 4104, 4108, 4112, 4115, 4116, 4119, 4120, 4124, 4128, 4131, 4132, 4135, 4136, 4139, 4140, 5120, 5123, 5124, 5128, 5132, 5136, 5160, 6144 + 36];
        const at = next() < 0.8 ? fields[Math.floor(next() * fields.length)]! : Math.floor(next() * 7500);
        copy[at] = Math.floor(next() * 256);
      }
      const length = next() < 0.2 ? Math.floor(next() * copy.length) : copy.length;
      try {
        const cloud = parseKsplat(copy.subarray(0, length));
        expect(cloud.count).toBeGreaterThan(0);
      } catch (error) {
        expect(error, String(error)).toBeInstanceOf(SplatFormatError);
        errors++;
      }
    }
    expect(errors).toBeGreaterThan(500);
  });
});
