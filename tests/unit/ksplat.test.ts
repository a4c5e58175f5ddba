import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryReadFileSystem, readKsplat } from '@playcanvas/splat-transform';
import { parseKsplat } from '../../src/io/ksplat/decode';
import { looksLikeKsplat } from '../../src/io/ksplat/layout';
import { parseSplatPly, SplatFormatError } from '../../src/io/ply/parse';
import {
  allocateSplatCloud, computeBounds, SH_C0, shCoefficients, type ShDegree, type SplatCloud,
} from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { toFloat16, writeKsplat, type KsplatWriteOptions, type WrittenKsplat } from '../support/ksplat-writer';
import { expectFormatError } from '../support/format-errors';
import { rng } from '../support/splat-files';
import { firstDifference } from '../support/clouds';

const INRIA_9K = 'inria_kacytran_iter7000_9k_sh3.ply';
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
const RANGE = 32767;


/**
 * A degree-3 cloud built to exercise the quantisers: a dense cluster (full
 * buckets) plus scattered splats (partially filled ones), scales from e^-12
 * (float16 subnormals) to e^1 and a few zeros, unnormalised quaternions,
 * colours beyond [0, 1] (clamped by the 8-bit colour) and SH in [-1, 1].
 */
function syntheticCloud(count: number, seed: number): SplatCloud {
  const next = rng(seed);
  const cloud = allocateSplatCloud(count, 3);
  for (let i = 0; i < count; i++) {
    const clustered = i % 3 !== 0;
    for (let a = 0; a < 3; a++) {
      cloud.positions[3 * i + a] = clustered ? 1 + next() * 1.5 : (next() - 0.5) * 40;
      cloud.scales[3 * i + a] = i % 97 === 5 ? 0 : Math.exp(-12 + 13 * next());
      cloud.dc[3 * i + a] = (next() - 0.5) * 5;
    }
    for (let k = 0; k < 4; k++) cloud.rotations[4 * i + k] = (next() - 0.5) * 3;
    cloud.opacities[i] = next();
  }
  for (let j = 0; j < cloud.sh.length; j++) cloud.sh[j] = next() * 2 - 1;
  cloud.bounds = computeBounds(cloud.positions, count);
  return cloud;
}


const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));


interface Tolerances {
  /** Largest block size used (positions at levels 1 and 2). */
  blockSize: number;
  positionRange?: number;
}

/**
 * Compares a parsed cloud with the cloud that was written, splat by splat in
 * file order, within each level's quantisation:
 * - level 0 stores float32: positions, scales and SH exactly; the writer
 *   stores the normalised quaternion, so rotations within 1e-6.
 * - levels 1 and 2: a position is a uint16 step of (block / 2) / R from its
 *   bucket centre, so the error is at most half a step, block / (4 R), plus
 *   float32 rounding of the result (|p| 2^-22 allowed); scales and
 *   quaternion components are float16: relative error 2^-11 plus 2^-25 for
 *   subnormals; after renormalising, a quaternion is within 1e-3.
 * - SH at level 1: float16 as scales; at level 2 one byte over the header's
 *   range, so half a step: (max - min) / 510.
 * - colour and opacity are bytes at every level: half a step, 0.5 / 255, of
 *   the colour clamped to [0, 1].
 * Returns the worst excess of error over tolerance per attribute (≤ 0 passes).
 */
function compareWithinQuantisation(
  parsed: SplatCloud, input: SplatCloud, written: WrittenKsplat, level: 0 | 1 | 2, degree: ShDegree, tol: Tolerances,
): Record<string, number> {
  const worst: Record<string, number> = { position: -Infinity, scale: -Infinity, rotation: -Infinity, colour: -Infinity, opacity: -Infinity, sh: -Infinity };
  const note = (key: string, excess: number): void => {
    if (!(excess <= worst[key]!)) worst[key] = Number.isNaN(excess) ? Infinity : excess;
  };
  const Ki = shCoefficients(input.shDegree);
  const Kp = shCoefficients(parsed.shDegree);
  const Kw = shCoefficients(degree);
  const range = tol.positionRange ?? RANGE;
  const shStep = (written.shRange.max - written.shRange.min) / 510;
  for (let i = 0; i < parsed.count; i++) {
    const j = written.order[i]!;
    for (let a = 0; a < 3; a++) {
      const p = input.positions[3 * j + a]!;
      const dp = Math.abs(parsed.positions[3 * i + a]! - p);
      note('position', level === 0 ? dp : dp - (tol.blockSize / (4 * range) + Math.abs(p) * 2 ** -22));
      const s = input.scales[3 * j + a]!;
      const ds = Math.abs(parsed.scales[3 * i + a]! - s);
      note('scale', level === 0 ? ds : ds - (Math.abs(s) * 2 ** -11 + 2 ** -25));
      const colour = 0.5 + SH_C0 * parsed.dc[3 * i + a]!;
      note('colour', Math.abs(colour - clamp01(0.5 + SH_C0 * input.dc[3 * j + a]!)) - (0.5 / 255 + 1e-6));
    }
    note('opacity', Math.abs(parsed.opacities[i]! - clamp01(input.opacities[j]!)) - (0.5 / 255 + 1e-6));
    const q = [0, 1, 2, 3].map((k) => input.rotations[4 * j + k]!);
    const norm = Math.hypot(...q);
    for (let k = 0; k < 4; k++) {
      const expected = norm > 0 ? q[k]! / norm : k === 0 ? 1 : 0;
      note('rotation', Math.abs(parsed.rotations[4 * i + k]! - expected) - (level === 0 ? 1e-6 : 1e-3));
    }
    for (let k = 0; k < Kp; k++) {
      for (let c = 0; c < 3; c++) {
        const got = parsed.sh[(i * Kp + k) * 3 + c]!;
        const v = k < Kw ? input.sh[(j * Ki + k) * 3 + c]! : 0;
        const d = Math.abs(got - v);
        const allowed = level === 0 ? 0 : level === 1 ? Math.abs(v) * 2 ** -11 + 2 ** -25 : shStep + 1e-6;
        note('sh', d - allowed);
      }
    }
  }
  return worst;
}

function expectWithin(worst: Record<string, number>): void {
  for (const [key, excess] of Object.entries(worst)) {
    expect(excess, `${key} error exceeds its tolerance by ${excess}`).toBeLessThanOrEqual(0);
  }
}

function partialBucketCount(bytes: Uint8Array, section: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint32(4096 + 1024 * section + 36, true);
}

function fullBucketCount(bytes: Uint8Array, section: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset).getUint32(4096 + 1024 * section + 32, true);
}

let inria: SplatCloud;
let synthetic: SplatCloud;
beforeAll(() => {
  inria = parseSplatPly(readFileSync(scenePath(INRIA_9K)));
  synthetic = syntheticCloud(2000, 7);
});

describe('toFloat16 (the test writer)', () => {
  it('encodes known float16 patterns', () => {
    expect(toFloat16(0)).toBe(0);
    expect(toFloat16(-0)).toBe(0x8000);
    expect(toFloat16(1)).toBe(0x3c00);
    expect(toFloat16(-2)).toBe(0xc000);
    expect(toFloat16(65504)).toBe(0x7bff);
    expect(toFloat16(1e9)).toBe(0x7bff);
    expect(toFloat16(2 ** -24)).toBe(0x0001);
    expect(toFloat16(2 ** -14)).toBe(0x0400);
    expect(toFloat16(1 + 2 ** -11)).toBe(0x3c00); // a tie rounds to even
    expect(toFloat16(1 + 3 * 2 ** -11)).toBe(0x3c02);
  });
});

describe('parseKsplat round trips (every level × SH degree)', () => {
  for (const level of LEVELS) {
    for (const degree of DEGREES) {
      it(`synthetic cloud, level ${level}, SH degree ${degree}, partially filled buckets`, () => {
        const written = writeKsplat(synthetic, { level, shDegree: degree, bucketSize: 64, blockSize: 4 });
        if (level > 0) {
          expect(fullBucketCount(written.bytes, 0)).toBeGreaterThan(0);
          expect(partialBucketCount(written.bytes, 0)).toBeGreaterThan(0);
        }
        const parsed = parseKsplat(written.bytes);
        expect(parsed.count).toBe(synthetic.count);
        expect(parsed.shDegree).toBe(degree);
        expect(parsed.sh.length).toBe(synthetic.count * shCoefficients(degree) * 3);
        expectWithin(compareWithinQuantisation(parsed, synthetic, written, level, degree, { blockSize: 4 }));
        expect(parsed.bounds).toEqual(computeBounds(parsed.positions, parsed.count));
      });

      it(`real 9k INRIA scene, level ${level}, SH degree ${degree}`, () => {
        const written = writeKsplat(inria, { level, shDegree: degree });
        const parsed = parseKsplat(written.bytes);
        expect(parsed.count).toBe(9080);
        expect(parsed.shDegree).toBe(degree);
        expectWithin(compareWithinQuantisation(parsed, inria, written, level, degree, { blockSize: 5 }));
      });
    }
  }

  it('level 0 keeps the file order and the float32 values bit for bit', () => {
    const written = writeKsplat(inria, { level: 0 });
    const parsed = parseKsplat(written.bytes);
    expect(written.order.every((v, i) => v === i)).toBe(true);
    expect(firstDifference(parsed.positions, inria.positions)).toBe(-1);
    expect(firstDifference(parsed.scales, inria.scales)).toBe(-1);
    expect(firstDifference(parsed.sh, inria.sh)).toBe(-1);
  });

  it('reads the defaults when the position range and SH range fields are 0', () => {
    const options: KsplatWriteOptions = { level: 2, bucketSize: 64, blockSize: 4, shRange: { min: -1.5, max: 1.5 }, zeroDefaults: true };
    const written = writeKsplat(synthetic, options);
    const view = new DataView(written.bytes.buffer);
    expect(view.getFloat32(36, true)).toBe(0);
    expect(view.getFloat32(40, true)).toBe(0);
    expect(view.getUint32(4096 + 24, true)).toBe(0);
    const parsed = parseKsplat(written.bytes);
    expectWithin(compareWithinQuantisation(parsed, synthetic, written, 2, 3, { blockSize: 4 }));
  });

  it('uses the section position range field', () => {
    const written = writeKsplat(synthetic, { level: 1, positionRange: 1000, bucketSize: 64, blockSize: 4 });
    const parsed = parseKsplat(written.bytes);
    expectWithin(compareWithinQuantisation(parsed, synthetic, written, 1, 3, { blockSize: 4, positionRange: 1000 }));
    // Not within the default range's (much finer) tolerance: the field is really read.
    const strict = compareWithinQuantisation(parsed, synthetic, written, 1, 3, { blockSize: 4 });
    expect(strict.position).toBeGreaterThan(0);
  });

  it('accepts an ArrayBuffer and a misaligned view into a larger buffer', () => {
    const written = writeKsplat(synthetic, { level: 1, bucketSize: 64, blockSize: 4 });
    const reference = parseKsplat(written.bytes);
    const fromBuffer = parseKsplat(written.bytes.slice().buffer);
    const padded = new Uint8Array(written.bytes.length + 5);
    padded.set(written.bytes, 3);
    const fromView = parseKsplat(padded.subarray(3, 3 + written.bytes.length));
    for (const cloud of [fromBuffer, fromView]) {
      for (const key of ['positions', 'scales', 'rotations', 'opacities', 'dc', 'sh'] as const) {
        expect(firstDifference(cloud[key], reference[key]), key).toBe(-1);
      }
    }
  });

  it('reports progress, increasing, ending at 1', () => {
    const big = syntheticCloud(140_000, 3);
    const fractions: number[] = [];
    parseKsplat(writeKsplat(big, { level: 1, shDegree: 0 }).bytes, { onProgress: (f) => fractions.push(f) });
    expect(fractions.length).toBeGreaterThan(2);
    for (let k = 1; k < fractions.length; k++) expect(fractions[k]!).toBeGreaterThan(fractions[k - 1]!);
    expect(fractions[fractions.length - 1]).toBe(1);
  });
});

describe('parseKsplat with several sections', () => {
  const sections = [
    { count: 700, bucketSize: 7, blockSize: 3 },
    { count: 1, bucketSize: 1 },
    { count: 1299, bucketSize: 300, blockSize: 6 },
  ];

  for (const level of LEVELS) {
    it(`level ${level}: three sections with their own bucket and block sizes`, () => {
      const written = writeKsplat(synthetic, { level, sections, blockSize: 5 });
      expect(new DataView(written.bytes.buffer).getUint32(4, true)).toBe(3);
      if (level > 0) {
        expect(partialBucketCount(written.bytes, 0)).toBeGreaterThan(0);
        expect(fullBucketCount(written.bytes, 0)).toBeGreaterThan(0);
        expect(partialBucketCount(written.bytes, 2)).toBeGreaterThan(0);
        // Splats stay within their section.
        expect(Math.max(...written.order.subarray(0, 700))).toBeLessThan(700);
        expect(written.order[700]).toBe(700);
      }
      const parsed = parseKsplat(written.bytes);
      expect(parsed.count).toBe(2000);
      expectWithin(compareWithinQuantisation(parsed, synthetic, written, level, 3, { blockSize: 6 }));
    });
  }

  it('sections of different SH degrees: the cloud takes the highest, the others get zeros', () => {
    const mixed = [
      { count: 500, shDegree: 1 as ShDegree },
      { count: 800, shDegree: 3 as ShDegree },
      { count: 700, shDegree: 0 as ShDegree },
    ];
    for (const level of LEVELS) {
      const written = writeKsplat(synthetic, { level, sections: mixed, bucketSize: 32, blockSize: 4 });
      const parsed = parseKsplat(written.bytes);
      expect(parsed.shDegree).toBe(3);
      // Compare each section against its own degree.
      let first = 0;
      for (const section of mixed) {
        const sub = sliceCloud(parsed, first, section.count);
        const w = { ...written, order: written.order.subarray(first, first + section.count) };
        expectWithin(compareWithinQuantisation(sub, synthetic, w, level, section.shDegree, { blockSize: 4 }));
        first += section.count;
      }
    }
  });
});

/** Splats [first, first + count) of a cloud, as a cloud of the same SH degree. */
function sliceCloud(cloud: SplatCloud, first: number, count: number): SplatCloud {
  const K3 = shCoefficients(cloud.shDegree) * 3;
  return {
    count,
    shDegree: cloud.shDegree,
    positions: cloud.positions.subarray(3 * first, 3 * (first + count)),
    scales: cloud.scales.subarray(3 * first, 3 * (first + count)),
    rotations: cloud.rotations.subarray(4 * first, 4 * (first + count)),
    opacities: cloud.opacities.subarray(first, first + count),
    dc: cloud.dc.subarray(3 * first, 3 * (first + count)),
    sh: cloud.sh.subarray(K3 * first, K3 * (first + count)),
    bounds: cloud.bounds,
  };
}

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

describe('cross-check with @playcanvas/splat-transform reading the same files', () => {
  async function readWithSplatTransform(bytes: Uint8Array) {
    const fileSystem = new MemoryReadFileSystem();
    fileSystem.set('scene.ksplat', bytes);
    const source = await fileSystem.createSource('scene.ksplat');
    try {
      return await readKsplat(source);
    } finally {
      source.close();
    }
  }

  /**
   * splat-transform decodes to raw INRIA-style columns: x y z, scale_* as
   * logs (-10 for a zero scale), rot_* as stored, f_dc_*, opacity as a logit
   * (clamped 1e-6 away from 0 and 1), f_rest_* channel-major. Converted back,
   * they must equal what parseKsplat decodes, up to float32 rounding.
   */
  async function crossCheck(bytes: Uint8Array): Promise<void> {
    const ours = parseKsplat(bytes);
    const table = await readWithSplatTransform(bytes);
    expect(table.numRows).toBe(ours.count);
    const column = (name: string) => {
      const found = table.getColumnByName(name);
      if (!found) throw new Error(`splat-transform has no column ${name}`);
      return found.data;
    };
    const K = shCoefficients(ours.shDegree);
    const restColumns = table.columnNames.filter((n) => n.startsWith('f_rest_')).length;
    expect(restColumns).toBe(K * 3);
    const close = (a: number, b: number, tolerance: number) => Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));
    let bad = 0;
    const report: string[] = [];
    const check = (ok: boolean, what: string) => {
      if (!ok) {
        bad++;
        if (report.length < 5) report.push(what);
      }
    };
    const xyz = ['x', 'y', 'z'].map(column);
    const scale = [0, 1, 2].map((a) => column(`scale_${a}`));
    const rot = [0, 1, 2, 3].map((k) => column(`rot_${k}`));
    const fdc = [0, 1, 2].map((a) => column(`f_dc_${a}`));
    const opacity = column('opacity');
    const rest = Array.from({ length: K * 3 }, (_, n) => column(`f_rest_${n}`));
    for (let i = 0; i < ours.count; i++) {
      for (let a = 0; a < 3; a++) {
        check(close(ours.positions[3 * i + a]!, xyz[a]![i]!, 1e-6), `x[${i}][${a}]`);
        const s = ours.scales[3 * i + a]!;
        check(s > 0 ? close(Math.log(s), scale[a]![i]!, 1e-6) : scale[a]![i] === -10, `scale[${i}][${a}]`);
        check(close(ours.dc[3 * i + a]!, fdc[a]![i]!, 1e-6), `dc[${i}][${a}]`);
      }
      const q = [0, 1, 2, 3].map((k) => rot[k]![i]!);
      const norm = Math.hypot(...q);
      for (let k = 0; k < 4; k++) check(close(ours.rotations[4 * i + k]!, q[k]! / norm, 1e-6), `rot[${i}][${k}]`);
      const o = clamp01(ours.opacities[i]!);
      check(Math.abs(o - 1 / (1 + Math.exp(-opacity[i]!))) <= 2e-6, `opacity[${i}]`);
      for (let k = 0; k < K; k++) {
        for (let c = 0; c < 3; c++) {
          check(close(ours.sh[(i * K + k) * 3 + c]!, rest[c * K + k]![i]!, 1e-6), `sh[${i}][${k}][${c}]`);
        }
      }
    }
    expect(bad, report.join(', ')).toBe(0);
  }

  for (const level of LEVELS) {
    it(`the real 9k INRIA scene, level ${level}, SH degree 3`, async () => {
      await crossCheck(writeKsplat(inria, { level }).bytes);
    });
  }

  it('the real 9k INRIA scene, level 2, SH degree 2 (the highest GaussianSplats3D writes)', async () => {
    await crossCheck(writeKsplat(inria, { level: 2, shDegree: 2 }).bytes);
  });

  it('three sections with partially filled buckets, levels 1 and 2, SH degree 0', async () => {
    // 24-byte splats keep every section 4-byte aligned, which splat-transform's typed-array views need.
    const sections = [{ count: 700, bucketSize: 7, blockSize: 3 }, { count: 1 }, { count: 1299, bucketSize: 300 }];
    for (const level of [1, 2] as const) {
      await crossCheck(writeKsplat(synthetic, { level, shDegree: 0, sections }).bytes);
    }
  });

  it('the synthetic cloud at level 1, SH degree 3, small buckets', async () => {
    await crossCheck(writeKsplat(synthetic, { level: 1, bucketSize: 16, blockSize: 2 }).bytes);
  });
});
