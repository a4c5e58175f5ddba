import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCompressedPly } from '../../src/io/ply/compressed';
import { isCompressedPly } from '../../src/io/formats/compressed-ply';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { parsePlyHeader, SplatFormatError } from '../../src/io/ply/parse';
import { SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';

const BIKER = 'playcanvas_biker.compressed.ply';

function decode(bytes: Uint8Array): SplatCloud {
  return parseCompressedPly(bytes, parsePlyHeader(bytes));
}

/**
 * Reads the biker's chunk table without the parser under test: the header
 * is split by hand; the chunk element comes first with 18 floats per row.
 */
function rawChunks(bytes: Uint8Array): { count: number; get: (chunk: number, field: number) => number } {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, 4096).toString('latin1');
  const headerEnd = text.indexOf('end_header\n') + 'end_header\n'.length;
  const lines = text.slice(0, headerEnd).split('\n');
  const elements = lines.filter((l) => l.startsWith('element '));
  expect(elements[0]).toBe('element chunk 597');
  expect(lines.filter((l) => l.startsWith('property float ')).length).toBe(18);
  const count = Number(elements[0]!.split(' ')[2]);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { count, get: (chunk, field) => view.getFloat32(headerEnd + chunk * 72 + field * 4, true) };
}

describe('parseCompressedPly on the PlayCanvas biker', () => {
  let bytes: Uint8Array;
  let cloud: SplatCloud;
  beforeAll(() => {
    bytes = readFileSync(scenePath(BIKER));
    cloud = decode(bytes);
  });

  it('is recognised as compressed and has the right count and SH degree', () => {
    expect(isCompressedPly(parsePlyHeader(bytes))).toBe(true);
    expect(cloud.count).toBe(152746);
    expect(cloud.shDegree).toBe(0);
    expect(cloud.sh.length).toBe(0);
    expect(cloud.positions.length).toBe(152746 * 3);
    expect(cloud.rotations.length).toBe(152746 * 4);
  });

  it('puts every position inside its chunk bounds and every scale inside its chunk scale range', () => {
    const chunks = rawChunks(bytes);
    expect(chunks.count).toBe(597);
    expect(Math.ceil(cloud.count / 256)).toBe(597);
    const eps = 1e-4;
    for (let i = 0; i < cloud.count; i++) {
      const c = Math.floor(i / 256);
      for (let a = 0; a < 3; a++) {
        const p = cloud.positions[3 * i + a]!;
        const lo = chunks.get(c, a), hi = chunks.get(c, 3 + a);
        if (!(p >= lo - eps * (1 + Math.abs(lo)) && p <= hi + eps * (1 + Math.abs(hi)))) {
          expect.fail(`splat ${i} axis ${a}: position ${p} outside chunk ${c} [${lo}, ${hi}]`);
        }
        const s = cloud.scales[3 * i + a]!;
        const sLo = Math.exp(chunks.get(c, 6 + a)), sHi = Math.exp(chunks.get(c, 9 + a));
        if (!(Number.isFinite(s) && s > 0 && s >= sLo * (1 - eps) && s <= sHi * (1 + eps))) {
          expect.fail(`splat ${i} axis ${a}: scale ${s} outside chunk ${c} [${sLo}, ${sHi}]`);
        }
      }
    }
    for (let a = 0; a < 3; a++) expect(cloud.bounds.min[a]).toBeLessThan(cloud.bounds.max[a]!);
  });

  it('has unit quaternions, opacities in 0..1 and base colours in 0..1', () => {
    let worstUnit = 0;
    for (let i = 0; i < cloud.count; i++) {
      const q = [0, 1, 2, 3].map((j) => cloud.rotations[4 * i + j]!);
      worstUnit = Math.max(worstUnit, Math.abs(Math.hypot(...q) - 1));
      const o = cloud.opacities[i]!;
      if (!(o >= 0 && o <= 1)) expect.fail(`splat ${i}: opacity ${o}`);
      for (let c = 0; c < 3; c++) {
        const colour = 0.5 + SH_C0 * cloud.dc[3 * i + c]!;
        if (!(colour >= -1e-5 && colour <= 1 + 1e-5)) expect.fail(`splat ${i} channel ${c}: colour ${colour}`);
      }
    }
    expect(worstUnit).toBeLessThan(1e-6);
  });
});

// ---- hand-built files ----

interface ChunkRow {
  min: number[]; max: number[]; minScale: number[]; maxScale: number[];
  minColour?: number[]; maxColour?: number[];
}

/** Builds a binary little-endian compressed PLY from chunk rows, packed vertex words and optional SH bytes. */
function buildFile(
  chunks: ChunkRow[],
  vertices: number[][],
  options: { withColour?: boolean; vertexCount?: number; sh?: number[][]; truncate?: number } = {},
): Uint8Array {
  const withColour = options.withColour ?? true;
  const chunkNames = [
    'min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z',
    'min_scale_x', 'min_scale_y', 'min_scale_z', 'max_scale_x', 'max_scale_y', 'max_scale_z',
    ...(withColour ? ['min_r', 'min_g', 'min_b', 'max_r', 'max_g', 'max_b'] : []),
  ];
  const restCount = options.sh?.[0]?.length ?? 0;
  const lines = [
    'ply', 'format binary_little_endian 1.0', `element chunk ${chunks.length}`,
    ...chunkNames.map((n) => `property float ${n}`),
    `element vertex ${options.vertexCount ?? vertices.length}`,
    'property uint packed_position', 'property uint packed_rotation',
    'property uint packed_scale', 'property uint packed_color',
    ...(options.sh ? [`element sh ${options.sh.length}`,
      ...Array.from({ length: restCount }, (_, i) => `property uchar f_rest_${i}`)] : []),
    'end_header', '',
  ];
  const head = new TextEncoder().encode(lines.join('\n'));
  const bodySize = chunks.length * chunkNames.length * 4 + vertices.length * 16 + (options.sh?.length ?? 0) * restCount;
  const out = new Uint8Array(head.length + bodySize);
  out.set(head);
  const view = new DataView(out.buffer);
  let p = head.length;
  for (const c of chunks) {
    const values = [...c.min, ...c.max, ...c.minScale, ...c.maxScale,
      ...(withColour ? [...c.minColour!, ...c.maxColour!] : [])];
    for (const v of values) { view.setFloat32(p, v, true); p += 4; }
  }
  for (const words of vertices) for (const w of words) { view.setUint32(p, w >>> 0, true); p += 4; }
  for (const row of options.sh ?? []) for (const b of row) out[p++] = b;
  return options.truncate ? out.subarray(0, out.length - options.truncate) : out;
}

const pack111011 = (x: number, y: number, z: number): number => ((x << 21) | (y << 11) | z) >>> 0;
const packRot = (largest: number, a: number, b: number, c: number): number =>
  ((largest << 30) | (a << 20) | (b << 10) | c) >>> 0;
const packColour = (r: number, g: number, b: number, o: number): number =>
  ((r << 24) | (g << 16) | (b << 8) | o) >>> 0;

const CHUNK: ChunkRow = {
  min: [-1, 0, 10], max: [1, 4, 18],
  minScale: [-2, -3, -4], maxScale: [0, 1, 2],
  minColour: [0.2, 0.1, 0], maxColour: [0.6, 0.9, 1],
};
const H = Math.SQRT1_2;

describe('parseCompressedPly on a hand-built one-chunk file', () => {
  const vertices = [
    // max x, min y, mid z; scale min/max/max; w and z at 1/sqrt2 (largest = w)
    [pack111011(2047, 0, 1023), packRot(0, 511, 511, 1023), pack111011(0, 1023, 2047), packColour(255, 0, 51, 255)],
    // min x, max y, max z; scale all max; same rotation stored with z as the largest
    [pack111011(0, 1023, 2047), packRot(3, 1023, 511, 511), pack111011(2047, 1023, 2047), packColour(0, 255, 255, 0)],
    // x largest (w = -1/sqrt2 stored), colour mid, opacity 128
    [pack111011(0, 0, 0), packRot(1, 0, 511, 511), pack111011(0, 0, 0), packColour(128, 128, 128, 128)],
  ];

  it('decodes positions, scales, rotations, colours and opacities to the expected numbers', () => {
    const cloud = decode(buildFile([CHUNK], vertices));
    expect(cloud.count).toBe(3);
    expect(cloud.shDegree).toBe(0);
    const close = (got: ArrayLike<number>, from: number, want: number[], digits = 5): void => {
      want.forEach((w, k) => expect(got[from + k], `index ${from + k}`).toBeCloseTo(w, digits));
    };
    close(cloud.positions, 0, [1, 0, 10 + 8 * 1023 / 2047]);
    close(cloud.positions, 3, [-1, 4, 18]);
    close(cloud.positions, 6, [-1, 0, 10]);
    close(cloud.scales, 0, [Math.exp(-2), Math.exp(1), Math.exp(2)]);
    close(cloud.scales, 3, [1, Math.exp(1), Math.exp(2)]);
    close(cloud.scales, 6, [Math.exp(-2), Math.exp(-3), Math.exp(-4)]);
    // 511/1023 is 0.0005 below the centre: those components are about -0.0007.
    close(cloud.rotations, 0, [H, 0, 0, H], 2);
    close(cloud.rotations, 4, [H, 0, 0, H], 2);
    close(cloud.rotations, 8, [-H, H, 0, 0], 2);
    expect(cloud.rotations[3]).toBeCloseTo(H, 5); // stored exactly: unorm 1 → 1/sqrt2
    expect(cloud.rotations[4]).toBeCloseTo(H, 5);
    expect(cloud.rotations[8]).toBeCloseTo(-H, 5);
    const colour = (i: number) => [0, 1, 2].map((c) => 0.5 + SH_C0 * cloud.dc[3 * i + c]!);
    close(colour(0), 0, [0.6, 0.1, 0.2]);
    close(colour(1), 0, [0.2, 0.9, 1]);
    close(colour(2), 0, [0.2 + 0.4 * 128 / 255, 0.1 + 0.8 * 128 / 255, 128 / 255]);
    close(cloud.opacities, 0, [1, 0, 128 / 255]);
    expect(cloud.bounds).toEqual({ min: [-1, 0, 10], max: [1, 4, 18] });
  });

  it('uses the colour byte as is when the chunks have no colour range', () => {
    const cloud = decode(buildFile([CHUNK], vertices, { withColour: false }));
    const colour = [0, 1, 2].map((c) => 0.5 + SH_C0 * cloud.dc[c]!);
    expect(colour[0]).toBeCloseTo(1, 5);
    expect(colour[1]).toBeCloseTo(0, 5);
    expect(colour[2]).toBeCloseTo(0.2, 5);
  });

  it('dequantises an sh element and reorders it coefficient-major', () => {
    // Degree 1: f_rest_{c*3+k}; byte b → b * 8 / 255 - 4.
    const row = [0, 255, 51, 102, 153, 204, 10, 20, 30];
    const cloud = decode(buildFile([CHUNK], vertices.slice(0, 1), { sh: [row] }));
    expect(cloud.shDegree).toBe(1);
    expect(cloud.sh.length).toBe(9);
    for (let k = 0; k < 3; k++) {
      for (let c = 0; c < 3; c++) {
        expect(cloud.sh[k * 3 + c]).toBeCloseTo(row[c * 3 + k]! * 8 / 255 - 4, 5);
      }
    }
  });

  it('reports progress ending at 1', () => {
    const bytes = buildFile([CHUNK], vertices);
    const seen: number[] = [];
    parseCompressedPly(bytes, parsePlyHeader(bytes), { onProgress: (f) => seen.push(f) });
    expect(seen.at(-1)).toBe(1);
  });
});

describe('parseCompressedPly on inconsistent files', () => {
  const word = [pack111011(0, 0, 0), packRot(0, 511, 511, 511), pack111011(0, 0, 0), packColour(0, 0, 0, 255)];

  it('rejects more vertices than 256 per chunk', () => {
    const bytes = buildFile([CHUNK], Array.from({ length: 257 }, () => word));
    expect(() => decode(bytes)).toThrow(SplatFormatError);
    expect(() => decode(bytes)).toThrow(/257 vertices but only 1 chunks/);
  });

  it('rejects data shorter than the elements need', () => {
    const bytes = buildFile([CHUNK], [word, word], { truncate: 5 });
    expect(() => decode(bytes)).toThrow(SplatFormatError);
    expect(() => decode(bytes)).toThrow(/too short/);
  });

  it('rejects a vertex element without the packed properties', () => {
    const bytes = new TextEncoder().encode(
      'ply\nformat binary_little_endian 1.0\nelement chunk 0\nproperty float min_x\n' +
      'element vertex 0\nproperty uint packed_position\nend_header\n',
    );
    expect(isCompressedPly(parsePlyHeader(bytes))).toBe(true);
    expect(() => decode(bytes)).toThrow(SplatFormatError);
  });

  it('does not take an INRIA header for a compressed one', () => {
    const bytes = new TextEncoder().encode('ply\nformat binary_little_endian 1.0\nelement vertex 1\nproperty float x\nend_header\n');
    expect(isCompressedPly(parsePlyHeader(bytes))).toBe(false);
  });
});

describe('the loader entry point', () => {
  it('tells compressed from INRIA PLY by its elements', async () => {
    const compressed = await loadSplatFile(readFileSync(scenePath('playcanvas_biker.compressed.ply')), 'biker.ply');
    expect(compressed.count).toBe(152_746);
    const inria = await loadSplatFile(readFileSync(scenePath('inria_kacytran_iter7000_9k_sh3.ply')), 'scene.ply');
    expect(inria.count).toBe(9_080);
    expect(inria.shDegree).toBe(3);
  });
});
