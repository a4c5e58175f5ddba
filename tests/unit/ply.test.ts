import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parsePlyHeader, parseSplatPly, SplatFormatError } from '../../src/io/ply/parse';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { MIP_FILTER } from '../../src/scene/anti-aliasing';
import { scenePath } from '../shared-scenes';

const SCENES = {
  small: 'inria_kacytran_iter7000_9k_sh3.ply',
  medium: 'inria_karangkidul_150k_sh3_decoded.ply',
  large: 'inria_karangkidul_1M_sh0_decoded.ply',
};

function readScene(file: string): Uint8Array {
  return readFileSync(scenePath(file));
}

/**
 * Reads the raw stored fields without the parser under test: the header is
 * split by hand and every property of these files is a float32.
 */
function rawFields(bytes: Uint8Array) {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 8192)).toString('latin1');
  const headerEnd = text.indexOf('end_header\n') + 'end_header\n'.length;
  const lines = text.slice(0, headerEnd).split('\n');
  const count = Number(lines.find((l) => l.startsWith('element vertex'))!.split(' ')[2]);
  const props = lines.filter((l) => l.startsWith('property'));
  expect(props.every((l) => l.startsWith('property float '))).toBe(true);
  const names = props.map((l) => l.split(' ')[2]!);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const rowSize = names.length * 4;
  const get = (row: number, name: string): number => {
    const column = names.indexOf(name);
    expect(column, name).toBeGreaterThanOrEqual(0);
    return view.getFloat32(headerEnd + row * rowSize + column * 4, true);
  };
  return { count, names, get };
}

const f32 = (v: number): number => Math.fround(v);
const sigmoid = (v: number): number => 1 / (1 + Math.exp(-v));

/** Checks sampled rows of a parsed cloud against the raw fields. */
function checkRows(cloud: SplatCloud, bytes: Uint8Array, restCount: number): void {
  const raw = rawFields(bytes);
  const n = cloud.count;
  const rows = [0, 1, Math.floor(n / 3), Math.floor(n / 2), n - 2, n - 1];
  const K = restCount / 3;
  for (const i of rows) {
    for (const [a, name] of ['x', 'y', 'z'].entries()) expect(cloud.positions[3 * i + a]).toBe(raw.get(i, name));
    for (let c = 0; c < 3; c++) expect(cloud.dc[3 * i + c]).toBe(raw.get(i, `f_dc_${c}`));
    expect(cloud.opacities[i]).toBeCloseTo(sigmoid(raw.get(i, 'opacity')), 6);
    for (let a = 0; a < 3; a++) {
      const want = Math.exp(raw.get(i, `scale_${a}`));
      expect(Math.abs(cloud.scales[3 * i + a]! - want)).toBeLessThanOrEqual(want * 1e-6);
    }
    const q = [0, 1, 2, 3].map((j) => raw.get(i, `rot_${j}`));
    const norm = Math.hypot(...q);
    for (let j = 0; j < 4; j++) expect(cloud.rotations[4 * i + j]).toBeCloseTo(q[j]! / norm, 6);
    for (let k = 0; k < K; k++) {
      for (let c = 0; c < 3; c++) {
        expect(cloud.sh[(i * K + k) * 3 + c], `row ${i} k ${k} c ${c}`).toBe(raw.get(i, `f_rest_${c * K + k}`));
      }
    }
  }
}

describe('parseSplatPly on real INRIA scenes', () => {
  it('parses the 9k SH3 trainer output and normalises its quaternions', () => {
    const bytes = readScene(SCENES.small);
    const cloud = parseSplatPly(bytes);
    expect(cloud.count).toBe(9080);
    expect(cloud.shDegree).toBe(3);
    expect(cloud.sh.length).toBe(9080 * 15 * 3);
    checkRows(cloud, bytes, 45);

    const raw = rawFields(bytes);
    let minRawNorm = Infinity;
    let worstUnit = 0;
    for (let i = 0; i < cloud.count; i++) {
      minRawNorm = Math.min(minRawNorm, Math.hypot(...[0, 1, 2, 3].map((j) => raw.get(i, `rot_${j}`))));
      const r = cloud.rotations.subarray(4 * i, 4 * i + 4);
      worstUnit = Math.max(worstUnit, Math.abs(Math.hypot(...r) - 1));
    }
    expect(minRawNorm).toBeLessThan(0.95);
    expect(worstUnit).toBeLessThan(1e-6);
  });

  it('parses the 150k SH3 scene', () => {
    const bytes = readScene(SCENES.medium);
    const started = performance.now();
    const cloud = parseSplatPly(bytes);
    console.log(`150k SH3 parse: ${(performance.now() - started).toFixed(0)} ms`);
    expect(cloud.count).toBe(150_000);
    expect(cloud.shDegree).toBe(3);
    checkRows(cloud, bytes, 45);
  });

  describe('1M SH0 scene', () => {
    let bytes: Uint8Array;
    let cloud: SplatCloud;
    const fractions: number[] = [];
    beforeAll(() => {
      bytes = readScene(SCENES.large);
      const started = performance.now();
      cloud = parseSplatPly(bytes, { onProgress: (f) => fractions.push(f) });
      console.log(`1M SH0 parse: ${(performance.now() - started).toFixed(0)} ms`);
    });

    it('has the right count, degree and values', () => {
      expect(cloud.count).toBe(1_048_790);
      expect(cloud.shDegree).toBe(0);
      expect(cloud.sh.length).toBe(0);
      expect(cloud.positions.length).toBe(3 * 1_048_790);
      checkRows(cloud, bytes, 0);
    });

    it('has bounds far from the origin', () => {
      const { min, max } = cloud.bounds;
      [-938, -1082, -800].forEach((v, a) => expect(min[a]).toBeCloseTo(v, -1));
      [10, 0, 624].forEach((v, a) => expect(max[a]).toBeCloseTo(v, -1));
    });

    it('reports progress about every 64K rows, rising to 1', () => {
      expect(fractions.length).toBeGreaterThanOrEqual(16);
      expect(fractions.length).toBeLessThanOrEqual(18);
      for (let i = 1; i < fractions.length; i++) expect(fractions[i]).toBeGreaterThan(fractions[i - 1]!);
      expect(fractions[fractions.length - 1]).toBe(1);
    });
  });
});

// ---- Small PLY files built in the test ----

type Prop = [type: string, name: string];
interface ElementSpec { name: string; props: Prop[]; rows: number[][] }

const WRITERS: Record<string, [number, (v: DataView, at: number, x: number, le: boolean) => void]> = {
  float: [4, (v, at, x, le) => v.setFloat32(at, x, le)],
  double: [8, (v, at, x, le) => v.setFloat64(at, x, le)],
  uchar: [1, (v, at, x) => v.setUint8(at, x)],
  short: [2, (v, at, x, le) => v.setInt16(at, x, le)],
  int: [4, (v, at, x, le) => v.setInt32(at, x, le)],
};

function makePly(elements: ElementSpec[], format = 'binary_little_endian'): Uint8Array {
  let header = `ply\nformat ${format} 1.0\ncomment built by ply.test.ts\n`;
  for (const e of elements) {
    header += `element ${e.name} ${e.rows.length}\n`;
    for (const [type, name] of e.props) header += `property ${type} ${name}\n`;
  }
  header += 'end_header\n';
  const rowSize = (e: ElementSpec) => e.props.reduce((s, [t]) => s + WRITERS[t]![0], 0);
  const dataSize = elements.reduce((s, e) => s + rowSize(e) * e.rows.length, 0);
  const bytes = new Uint8Array(header.length + dataSize);
  bytes.set(Buffer.from(header, 'latin1'));
  const view = new DataView(bytes.buffer);
  let at = header.length;
  for (const e of elements) {
    for (const row of e.rows) {
      e.props.forEach(([type], j) => {
        WRITERS[type]![1](view, at, row[j]!, format !== 'binary_big_endian');
        at += WRITERS[type]![0];
      });
    }
  }
  return bytes;
}

const BASE_NAMES = [
  'x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity',
  'scale_0', 'scale_1', 'scale_2', 'rot_0', 'rot_1', 'rot_2', 'rot_3',
];
const REST_NAMES = Array.from({ length: 9 }, (_, i) => `f_rest_${i}`);
const NAMES = [...BASE_NAMES, ...REST_NAMES];
// Values exact in float32; row 2 has a zero quaternion.
const ROWS = [0, 1, 2].map((r) =>
  NAMES.map((name, j) => (name.startsWith('rot_') && r === 2 ? 0 : (r + 1) * 0.5 + j * 0.25 - 2)),
);

function plainVertex(names = NAMES, rows = ROWS): ElementSpec {
  return { name: 'vertex', props: names.map((n) => ['float', n]), rows };
}

describe('parseSplatPly on built files', () => {
  const plain = parseSplatPly(makePly([plainVertex()]));

  it('applies activations and reorders SH degree 1', () => {
    expect(plain.count).toBe(3);
    expect(plain.shDegree).toBe(1);
    const col = (r: number, name: string) => ROWS[r]![NAMES.indexOf(name)]!;
    expect(plain.opacities[1]).toBeCloseTo(sigmoid(col(1, 'opacity')), 6);
    expect(plain.scales[3]).toBeCloseTo(f32(Math.exp(col(1, 'scale_0'))), 6);
    for (let k = 0; k < 3; k++) {
      for (let c = 0; c < 3; c++) expect(plain.sh[(1 * 3 + k) * 3 + c]).toBe(col(1, `f_rest_${c * 3 + k}`));
    }
    expect(Array.from(plain.rotations.subarray(8, 12))).toEqual([1, 0, 0, 0]);
    expect(plain.bounds.min).toEqual([-1.5, -1.25, -1]);
  });

  it('reads shuffled properties of mixed types, skipping extra properties and elements', () => {
    const order = [...NAMES.keys()].sort((a, b) => ((a * 7) % 23) - ((b * 7) % 23));
    // opacity as a double, plus an unused uchar column: rows are no longer float-aligned.
    const props: Prop[] = [['uchar', 'red'], ...order.map((j): Prop => [NAMES[j] === 'opacity' ? 'double' : 'float', NAMES[j]!])];
    const rows = ROWS.map((row, r) => [200 + r, ...order.map((j) => row[j]!)]);
    const before: ElementSpec = { name: 'camera', props: [['short', 'a'], ['int', 'b'], ['uchar', 'c']], rows: [[1, 2, 3], [4, 5, 6]] };
    const after: ElementSpec = { name: 'face', props: [['int', 'v']], rows: [[7]] };
    const shuffled = parseSplatPly(makePly([before, { name: 'vertex', props, rows }, after]));
    expect(shuffled).toEqual(plain);
  });

  it('reads big-endian files like little-endian ones', () => {
    const props: Prop[] = NAMES.map((n) => [n === 'opacity' ? 'double' : 'float', n]);
    const big = makePly([{ name: 'vertex', props, rows: ROWS }], 'binary_big_endian');
    expect(parsePlyHeader(big).format).toBe('binary_big_endian');
    expect(parseSplatPly(big)).toEqual(plain);
  });

  it('accepts an unaligned view and gives the same result', () => {
    const bytes = makePly([plainVertex()]);
    const padded = new Uint8Array(bytes.length + 1);
    padded.set(bytes, 1);
    expect(parseSplatPly(padded.subarray(1))).toEqual(plain);
    expect(parseSplatPly(bytes.slice().buffer)).toEqual(plain);
  });

  it("folds Mip-Splatting's filter_3D into the splats, on both decoding paths, and says the file asks for its filter", () => {
    const filters = [0.5, 0, 2];
    const expectFolded = (cloud: SplatCloud) => {
      expect(cloud.antiAliasing).toEqual({ filter: MIP_FILTER, source: 'PLY property "filter_3D" (Mip-Splatting)' });
      for (let i = 0; i < 3; i++) {
        const s2 = [0, 1, 2].map((a) => plain.scales[3 * i + a]! ** 2);
        const f2 = filters[i]! ** 2;
        s2.forEach((v, a) => expect(cloud.scales[3 * i + a]).toBeCloseTo(Math.sqrt(v + f2), 6));
        const coefficient = Math.sqrt(s2.reduce((p, v) => p * v, 1) / s2.reduce((p, v) => p * (v + f2), 1));
        expect(cloud.opacities[i]).toBeCloseTo(plain.opacities[i]! * coefficient, 6);
      }
      expect(cloud.positions).toEqual(plain.positions);
    };
    const rows = ROWS.map((row, r) => [...row, filters[r]!]);
    expectFolded(parseSplatPly(makePly([plainVertex([...NAMES, 'filter_3D'], rows)])));
    // A double filter_3D: the mixed-type path.
    const props: Prop[] = [...NAMES.map((n): Prop => ['float', n]), ['double', 'filter_3D']];
    expectFolded(parseSplatPly(makePly([{ name: 'vertex', props, rows }])));
    expect(plain.antiAliasing).toBeUndefined();
  });

  it('describes the header', () => {
    const header = parsePlyHeader(makePly([plainVertex()]));
    expect(header.format).toBe('binary_little_endian');
    expect(header.elements).toHaveLength(1);
    expect(header.elements[0]!.rowSize).toBe(NAMES.length * 4);
    expect(header.elements[0]!.properties[6]).toMatchObject({ name: 'opacity', type: 'float32', offset: 24 });
  });
});

describe('parseSplatPly errors', () => {
  const good = makePly([plainVertex()]);
  const withHeader = (from: string, to: string) => {
    const text = Buffer.from(good).toString('latin1');
    return new Uint8Array(Buffer.from(text.replace(from, to), 'latin1'));
  };
  const cases: [string, () => Uint8Array, RegExp][] = [
    ['wrong magic', () => withHeader('ply\n', 'plx\n'), /Not a PLY file/],
    ['empty file', () => new Uint8Array(0), /Not a PLY file/],
    ['ascii format', () => withHeader('binary_little_endian', 'ascii'), /"ascii" is not supported: splat files are binary/],
    ['missing opacity', () => makePly([plainVertex(NAMES.filter((n) => n !== 'opacity'), ROWS.map((r) => r.slice(1)))]), /missing required property "opacity"/],
    ['count larger than data', () => withHeader('element vertex 3', 'element vertex 4'), /vertex count 4 is larger than the data.*only 3 rows/],
    ['data cut mid-row', () => good.subarray(0, good.length - 5), /only 2 rows/],
    ['truncated header', () => readScene(SCENES.small).subarray(0, 300), /header is truncated/],
    ['7 f_rest properties', () => makePly([plainVertex(NAMES.slice(0, -2), ROWS.map((r) => r.slice(0, -2)))]), /7 f_rest_\* properties/],
    ['no vertex element', () => withHeader('element vertex', 'element point'), /no "vertex" element/],
    ['unknown type', () => withHeader('property float x', 'property half x'), /unknown property type/],
    ['a NaN filter_3D', () => makePly([plainVertex([...NAMES, 'filter_3D'], ROWS.map((r, i) => [...r, i === 1 ? NaN : 0.1]))]), /filter_3D of splat 1 is NaN/],
  ];
  it.each(cases)('%s', (_, build, message) => {
    const bytes = build();
    expect(() => parseSplatPly(bytes)).toThrow(SplatFormatError);
    expect(() => parseSplatPly(bytes)).toThrow(message);
  });
});
