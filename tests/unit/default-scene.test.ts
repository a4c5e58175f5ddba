import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splatPlyRowBytes, writeSplatPly } from '../support/ply-writer';
import { makeDefaultScene } from '../support/default-scene';
import { computeBounds, shCoefficients, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';

const DATA_FILE = new URL('../../data/default-scene.ply', import.meta.url);

const bytesOf = (a: Float32Array): Buffer => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

/** A minimal reader for what the writer emits: header lines and rows of floats. */
function parsePly(bytes: Uint8Array): { header: string[]; rows: Float32Array[] } {
  const text = new TextDecoder().decode(bytes.subarray(0, 8192));
  const end = text.indexOf('end_header\n') + 'end_header\n'.length;
  const header = text.slice(0, end - 1).split('\n');
  const count = Number(header.find((l) => l.startsWith('element vertex'))!.split(' ')[2]);
  const props = header.filter((l) => l.startsWith('property')).length;
  const view = new DataView(bytes.buffer, bytes.byteOffset + end);
  expect(view.byteLength).toBe(count * props * 4);
  const rows = Array.from({ length: count }, (_, i) =>
    Float32Array.from({ length: props }, (_, j) => view.getFloat32((i * props + j) * 4, true)),
  );
  return { header, rows };
}

/** Two splats with distinct values everywhere, so a misplaced field shows. */
function tinyCloud(shDegree: ShDegree): SplatCloud {
  const k = shCoefficients(shDegree);
  const positions = Float32Array.of(1, 2, 3, -4, -5, -6);
  return {
    count: 2,
    shDegree,
    positions,
    scales: Float32Array.of(0.5, 1, 2, 0.01, 0.02, 0),
    rotations: Float32Array.of(1, 0, 0, 0, 0.5, 0.5, 0.5, 0.5),
    opacities: Float32Array.of(0.25, 1),
    dc: Float32Array.of(0.1, 0.2, 0.3, -0.1, -0.2, -0.3),
    // sh[(i * k + j) * 3 + c] = 1000 i + 100 c + j: the value names its slot.
    sh: Float32Array.from({ length: 2 * k * 3 }, (_, n) => {
      const c = n % 3, j = Math.floor(n / 3) % k, i = Math.floor(n / (3 * k));
      return 1000 * i + 100 * c + j;
    }),
    bounds: computeBounds(positions, 2),
  };
}

describe('writeSplatPly', () => {
  it.each([[0, 68], [3, 248]] as const)('degree %i: INRIA header and %i-byte rows', (degree, rowBytes) => {
    expect(splatPlyRowBytes(degree)).toBe(rowBytes);
    const bytes = writeSplatPly(tinyCloud(degree));
    const { header, rows } = parsePly(bytes);
    const rest = shCoefficients(degree) * 3;
    expect(header).toEqual([
      'ply',
      'format binary_little_endian 1.0',
      'element vertex 2',
      ...['x', 'y', 'z', 'nx', 'ny', 'nz', 'f_dc_0', 'f_dc_1', 'f_dc_2'].map((p) => `property float ${p}`),
      ...Array.from({ length: rest }, (_, i) => `property float f_rest_${i}`),
      ...['opacity', 'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3'].map(
        (p) => `property float ${p}`,
      ),
      'end_header',
    ]);
    expect(bytes.length).toBe(new TextEncoder().encode(header.join('\n') + '\n').length + 2 * rowBytes);

    const [a, b] = rows as [Float32Array, Float32Array];
    expect(Array.from(a.subarray(0, 9))).toEqual(Array.from(Float32Array.of(1, 2, 3, 0, 0, 0, 0.1, 0.2, 0.3)));
    // Channel-major f_rest: all of red's coefficients, then green's, then blue's.
    const k = rest / 3;
    for (let c = 0; c < 3; c++) {
      for (let j = 0; j < k; j++) expect(b[9 + c * k + j]).toBe(1000 + 100 * c + j);
    }
    const o = 9 + rest;
    const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));
    expect(sigmoid(a[o]!)).toBeCloseTo(0.25, 6);
    expect(Number.isFinite(b[o]!)).toBe(true); // opacity 1 gives a finite logit
    expect(sigmoid(b[o]!)).toBeGreaterThan(0.99999);
    expect(Array.from(a.subarray(o + 1, o + 4), Math.exp).map((v) => +v.toFixed(5))).toEqual([0.5, 1, 2]);
    expect(Array.from(b.subarray(o + 1, o + 4)).every(Number.isFinite)).toBe(true); // scale 0
    expect(Array.from(b.subarray(o + 4, o + 8))).toEqual([0.5, 0.5, 0.5, 0.5]); // w first
  });

  it('rejects arrays shorter than the count', () => {
    const cloud = tinyCloud(3);
    expect(() => writeSplatPly({ ...cloud, sh: cloud.sh.subarray(1) })).toThrow(/sh/);
    expect(() => writeSplatPly({ ...cloud, count: 3 })).toThrow(RangeError);
  });
});

describe('makeDefaultScene', () => {
  const scene = makeDefaultScene();

  it('is deterministic and seedable', () => {
    const again = makeDefaultScene();
    for (const key of ['positions', 'scales', 'rotations', 'opacities', 'dc', 'sh'] as const) {
      expect(Buffer.compare(bytesOf(again[key]), bytesOf(scene[key])), key).toBe(0);
    }
    expect(again.count).toBe(scene.count);
    expect(makeDefaultScene({ seed: 2 }).positions).not.toEqual(scene.positions);
  });

  it('has 30k-50k splats at SH degree 3 with finite values', () => {
    expect(scene.count).toBeGreaterThanOrEqual(30_000);
    expect(scene.count).toBeLessThanOrEqual(50_000);
    expect(scene.shDegree).toBe(3);
    const n = scene.count;
    const lengths = [scene.positions.length, scene.scales.length, scene.rotations.length];
    expect(lengths).toEqual([3 * n, 3 * n, 4 * n]);
    expect([scene.opacities.length, scene.dc.length, scene.sh.length]).toEqual([n, 3 * n, 45 * n]);
    for (const key of ['positions', 'scales', 'rotations', 'opacities', 'dc', 'sh'] as const) {
      expect(scene[key].every(Number.isFinite), key).toBe(true);
    }
  });

  it('stands about 2 units tall, y up, centred on the y axis', () => {
    const { min, max } = scene.bounds;
    expect(min[1]).toBeCloseTo(-1, 1);
    expect(max[1]).toBeCloseTo(1, 1);
    for (const a of [0, 2]) {
      expect(max[a]! + min[a]!).toBeCloseTo(0, 2);
      expect(max[a]! - min[a]!).toBeLessThan(max[1] - min[1]);
    }
    // The plinth is at the bottom: the widest splats are there, not at the top.
    let widestY = 0, widest = 0;
    for (let i = 0; i < scene.count; i++) {
      const r = Math.hypot(scene.positions[3 * i]!, scene.positions[3 * i + 2]!);
      if (r > widest) [widest, widestY] = [r, scene.positions[3 * i + 1]!];
    }
    expect(widestY).toBeLessThan(-0.8);
  });

  it('has unit quaternions, opacities in (0, 1) and flat splats lying in the surface', () => {
    const { positions: p, rotations: q, scales: s } = scene;
    const bad = { quaternion: 0, opacity: 0, flatness: 0, orientation: 0 };
    for (let i = 0; i < scene.count; i++) {
      const [w, x, y, z] = [q[4 * i]!, q[4 * i + 1]!, q[4 * i + 2]!, q[4 * i + 3]!];
      if (!(Math.abs(Math.hypot(w, x, y, z) - 1) < 1e-6)) bad.quaternion++;
      const o = scene.opacities[i]!;
      if (!(o > 0 && o < 1)) bad.opacity++;
      if (!(s[3 * i + 2]! < 0.2 * Math.min(s[3 * i]!, s[3 * i + 1]!))) bad.flatness++;
      // Every part is a surface of revolution, so the flat axis (third column of
      // the rotation) is perpendicular to the ring direction (-z, 0, x) / r.
      const r = Math.hypot(p[3 * i]!, p[3 * i + 2]!);
      if (r < 0.05) continue;
      const nx = 2 * (x * z + w * y), nz = 1 - 2 * (x * x + y * y);
      if (!(Math.abs((-p[3 * i + 2]! * nx + p[3 * i]! * nz) / r) < 1e-4)) bad.orientation++;
    }
    expect(bad).toEqual({ quaternion: 0, opacity: 0, flatness: 0, orientation: 0 });
  });

  it('puts view-dependent colour in the higher bands of the glaze only', () => {
    let glaze = 0, glazeCount = 0, plinthCount = 0, shinyPlinth = 0;
    for (let i = 0; i < scene.count; i++) {
      const y = scene.positions[3 * i + 1]!;
      const r = Math.hypot(scene.positions[3 * i]!, scene.positions[3 * i + 2]!);
      let energy = 0;
      for (let j = 0; j < 45; j++) energy += scene.sh[45 * i + j]! ** 2;
      if (y < -0.859 && r > 0.3) {
        plinthCount++; // the matte plinth top
        if (energy !== 0) shinyPlinth++;
      } else if (y > -0.5) [glaze, glazeCount] = [glaze + Math.sqrt(energy), glazeCount + 1];
    }
    expect(plinthCount).toBeGreaterThan(1000);
    expect(shinyPlinth).toBe(0);
    expect(glaze / glazeCount).toBeGreaterThan(0.1);
  });

  it('matches data/default-scene.ply byte for byte (run `npm run scene:default` after changes)', () => {
    const stored = new Uint8Array(readFileSync(DATA_FILE));
    const written = writeSplatPly(scene);
    expect(written.length).toBe(stored.length);
    const first = written.findIndex((v, i) => v !== stored[i]);
    expect(first, `first differing byte at ${first}`).toBe(-1);
  });
});
