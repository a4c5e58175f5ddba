/**
 * Framing by visible mass (src/scene/visible-mass.ts): a dense object in a
 * halo of faint strays is framed on the object, whatever the halo; the real
 * scenes keep a box close to their centres' bulk; and it stays cheap on
 * large scenes.
 */
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { robustBounds, selectNth, type Bounds } from '../../src/scene/splat-cloud';
import { rng } from '../support/splat-files';
import { visibleMassBounds } from '../../src/scene/visible-mass';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { SCENES_DIR } from '../shared-scenes';
import { tableInHalo, TABLE_CENTRE } from '../support/stray-halo';

const centre = (b: Bounds) => b.min.map((m, a) => (m + b.max[a]!) / 2);
const halfDiagonal = (b: Bounds) => Math.hypot(...b.max.map((m, a) => m - b.min[a]!)) / 2;
const distance = (a: readonly number[], b: readonly number[]) => Math.hypot(...a.map((v, i) => v - b[i]!));
/** Per axis, the share of `inner`'s extent that `outer` holds; the least of the three. */
const covered = (outer: Bounds, inner: Bounds) =>
  Math.min(...[0, 1, 2].map((a) => {
    const overlap = Math.min(outer.max[a]!, inner.max[a]!) - Math.max(outer.min[a]!, inner.min[a]!);
    return Math.max(0, overlap) / (inner.max[a]! - inner.min[a]!);
  }));

describe('a table in a halo of faint strays at 7× its radius', () => {
  test.each([
    ['faint strays (8 % of the splats)', {}],
    ['strays carrying real weight (20 % of the splats, opaque and large)', { haloShare: 0.2, haloOpacity: 0.9, haloSigma: 0.15 }],
  ])('%s: the box fits the table, its centre on the table', (_, options) => {
    const { cloud, object, objectRadius } = tableInHalo(options);
    const box = visibleMassBounds(cloud);
    // The table, whole (its thin legs less a trimmed percent), and not the halo.
    expect(covered(box, object)).toBeGreaterThan(0.9);
    expect(halfDiagonal(box)).toBeLessThan(1.15 * objectRadius);
    expect(distance(centre(box), centre(object))).toBeLessThan(0.1 * objectRadius);
    expect(distance(centre(object), TABLE_CENTRE)).toBeLessThan(objectRadius);
  });

  test('the centres\' bulk (robustBounds) is the halo: the framing this replaces', () => {
    const { cloud, objectRadius } = tableInHalo();
    expect(halfDiagonal(robustBounds(cloud.positions, cloud.count))).toBeGreaterThan(4 * objectRadius);
  });

  test('a scene with no visible splat falls back on the centres', () => {
    const { cloud } = tableInHalo({ objectSplats: 500 });
    cloud.opacities.fill(0);
    expect(visibleMassBounds(cloud)).toEqual(robustBounds(cloud.positions, cloud.count));
  });
});

test('selectNth: the k-th smallest, as a sort finds it, repeated values and all', () => {
  const random = rng(3);
  for (const n of [1, 2, 3, 10, 1000]) {
    const values = Float32Array.from({ length: n }, () => Math.round(random() * 20) - 10);
    const sorted = Float32Array.from(values).sort();
    for (const k of [0, n >> 1, n - 1, Math.floor(random() * n)]) expect(selectNth(Float32Array.from(values), k)).toBe(sorted[k]);
  }
});

describe('the real scenes', () => {
  const names = readdirSync(SCENES_DIR).filter((name) => /\.(ply|splat|spz|sog|ksplat)$/.test(name)).sort();
  test.each(names)('%s: the box is the bulk of the centres, give or take', async (name) => {
    const cloud = await loadSplatFile(new Uint8Array(readFileSync(join(SCENES_DIR, name))), name);
    const best = <T>(run: () => T): [T, number] => {
      let result = run();
      let fastest = Infinity;
      for (let k = 0; k < 3; k++) {
        const started = performance.now();
        result = run();
        fastest = Math.min(fastest, performance.now() - started);
      }
      return [result, fastest];
    };
    const [mass, ms] = best(() => visibleMassBounds(cloud));
    const [bulk, bulkMs] = best(() => robustBounds(cloud.positions, cloud.count));
    console.log(`${name}: ${cloud.count} splats, best of 3 ${ms.toFixed(1)} ms (robustBounds ${bulkMs.toFixed(1)} ms); mass box ${fmt(mass)} (r ${halfDiagonal(mass).toFixed(2)}), centres' box ${fmt(bulk)} (r ${halfDiagonal(bulk).toFixed(2)})`);
    expect(halfDiagonal(mass)).toBeGreaterThan(0.4 * halfDiagonal(bulk));
    expect(halfDiagonal(mass)).toBeLessThan(1.2 * halfDiagonal(bulk));
    expect(distance(centre(mass), centre(bulk))).toBeLessThan(0.5 * halfDiagonal(bulk));
  });
});

const fmt = (b: Bounds) => `[${b.min.map((v) => v.toFixed(2)).join(', ')}]..[${b.max.map((v) => v.toFixed(2)).join(', ')}]`;
