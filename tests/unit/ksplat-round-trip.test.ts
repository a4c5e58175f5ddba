/**
 * Reading GaussianSplats3D's .ksplat: files the test writer
 * (tests/support/ksplat-writer.ts) writes from a synthetic cloud and the
 * real 9k INRIA scene, at every compression level and SH degree, in one
 * section or several, decode to the splats written within each level's
 * quantisation.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseKsplat } from '../../src/io/ksplat/decode';
import { parseSplatPly } from '../../src/io/ply/parse';
import { computeBounds, SH_C0, shCoefficients, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { firstDifference } from '../support/clouds';
import {
  syntheticCloud, toFloat16, writeKsplat, type KsplatWriteOptions, type WrittenKsplat,
} from '../support/ksplat-writer';

const INRIA_9K = 'inria_kacytran_iter7000_9k_sh3.ply';
const LEVELS = [0, 1, 2] as const;
const DEGREES: ShDegree[] = [0, 1, 2, 3];
const RANGE = 32767;

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
