/**
 * .ksplat cross-checked with @playcanvas/splat-transform: it reads the
 * files the test writer writes (the real 9k INRIA scene and a synthetic
 * cloud, at each compression level, in one section or several) to the
 * same splats as parseKsplat, up to float32 rounding.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryReadFileSystem, readKsplat } from '@playcanvas/splat-transform';
import { parseKsplat } from '../../src/io/ksplat/decode';
import { parseSplatPly } from '../../src/io/ply/parse';
import { shCoefficients } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { syntheticCloud, writeKsplat } from '../support/ksplat-writer';

const INRIA_9K = 'inria_kacytran_iter7000_9k_sh3.ply';
const LEVELS = [0, 1, 2] as const;

const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));

// Made at collection: every test here reads one of them, none changes them.
const inria = parseSplatPly(readFileSync(scenePath(INRIA_9K)));
const synthetic = syntheticCloud(2000, 7);

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
