/**
 * Splat primitives placed by the nodes of the default scene, as
 * KHR_gaussian_splatting places them: centres through the nodes' global
 * matrix (a parent's matrix times a child's translation, rotation and
 * scale), covariances L C Cᵀ Lᵀ with L its linear part (the extension's
 * formula, worked out here from the file's own values), and SH turned by
 * its rotation: the placed splat's colour, as the reference rasterizer
 * evaluates it looking along a direction, is the unplaced splat's looking
 * along that direction turned back. Scales that differ between the axes
 * and a mirror are read exactly (the mirror with a warning); a shear is
 * refused (gltf-broken.test.ts).
 */
import { mat4, type vec3 } from 'gl-matrix';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseGltf } from '../../src/io/gltf/parse';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { preprocess } from '../../src/render/reference-rasterizer';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { buildGltf, glb, KHR, SPLAT_EXTENSION, splatAttributes, type AttributeSpec, type Built } from '../support/gltf-files';
import { rng } from '../support/splat-files';

type M3 = number[]; // 3×3, row-major
const count = 12;

/** F: the half turn about x between glTF's axes and the PLY scenes' (the reader's frame). */
const F = [1, 0, 0, 0, -1, 0, 0, 0, -1];
const mul = (a: M3, b: M3): M3 => Array.from({ length: 9 }, (_, k) => {
  const r = Math.floor(k / 3), c = k % 3;
  return a[r * 3]! * b[c]! + a[r * 3 + 1]! * b[3 + c]! + a[r * 3 + 2]! * b[6 + c]!;
});
const transpose = (a: M3): M3 => [a[0]!, a[3]!, a[6]!, a[1]!, a[4]!, a[7]!, a[2]!, a[5]!, a[8]!];
const apply = (a: M3, v: readonly number[]): number[] => [0, 1, 2].map((r) => a[r * 3]! * v[0]! + a[r * 3 + 1]! * v[1]! + a[r * 3 + 2]! * v[2]!);

/** The rotation matrix of a unit quaternion in glTF's order, x y z w. */
function rotationOf([x, y, z, w]: readonly number[]): M3 {
  return [
    1 - 2 * (y! * y! + z! * z!), 2 * (x! * y! - w! * z!), 2 * (x! * z! + w! * y!),
    2 * (x! * y! + w! * z!), 1 - 2 * (x! * x! + z! * z!), 2 * (y! * z! - w! * x!),
    2 * (x! * z! - w! * y!), 2 * (y! * z! + w! * x!), 1 - 2 * (x! * x! + y! * y!),
  ];
}

/** The unit quaternion (x y z w) of a turn by `angle` about `axis`. */
function turn(axis: readonly number[], angle: number): number[] {
  const n = Math.hypot(...axis);
  return [...axis.map((v) => (v / n) * Math.sin(angle / 2)), Math.cos(angle / 2)];
}

/** A 4×4 column-major matrix from a linear part (row-major) and a translation. */
function matrix(linear: M3, t: readonly number[]): number[] {
  return [linear[0]!, linear[3]!, linear[6]!, 0, linear[1]!, linear[4]!, linear[7]!, 0, linear[2]!, linear[5]!, linear[8]!, 0, t[0]!, t[1]!, t[2]!, 1];
}

/** Σ = (R S)(R S)ᵀ of a quaternion (x y z w) and scales. */
function covariance(q: readonly number[], s: readonly number[]): M3 {
  const m = mul(rotationOf(q), [s[0]!, 0, 0, 0, s[1]!, 0, 0, 0, s[2]!]);
  return mul(m, transpose(m));
}

/** Splat i's covariance as the cloud holds it (w x y z), in the reader's frame. */
const cloudCovariance = (cloud: SplatCloud, i: number): M3 => {
  const [w, x, y, z] = cloud.rotations.subarray(4 * i, 4 * i + 4);
  return covariance([x!, y!, z!, w!], [...cloud.scales.subarray(3 * i, 3 * i + 3)]);
};

/** The colour the reference rasterizer gives splat i of `cloud` seen along unit direction `d` (from the eye to the splat). */
function colourSeen(cloud: SplatCloud, i: number, d: readonly number[]): number[] {
  const p = [...cloud.positions.subarray(3 * i, 3 * i + 3)];
  const eye = p.map((v, a) => v - 4 * d[a]!) as vec3;
  const up: vec3 = Math.abs(d[1]!) < 0.9 ? [0, 1, 0] : [1, 0, 0];
  const view = mat4.lookAt(mat4.create(), eye, p as vec3, up);
  const seen = preprocess(cloud, { view, eye, fovY: 1, width: 64, height: 64 }, { shDegree: 3, splats: [i] });
  expect(seen.count).toBe(1);
  return [...seen.color.subarray(0, 3)];
}

const random = rng(5);
function direction(): number[] {
  const d = [random() - 0.5, random() - 0.5, random() - 0.5];
  const n = Math.hypot(...d);
  return d.map((v) => v / n);
}

/** Random SH of degree 3 (and a bright base colour, so the colours seen stay above 0, where nothing is clamped). */
function attributes(): AttributeSpec[] {
  return splatAttributes(count, 3).map((a) => {
    if (a.name === `${KHR}:SH_DEGREE_0_COEF_0`) return { ...a, data: Float32Array.from(a.data, () => 1.5 + random()) };
    if (a.name.startsWith(`${KHR}:SH_DEGREE_`)) return { ...a, data: Float32Array.from(a.data, () => 0.3 * (random() - 0.5)) };
    return a;
  });
}

let specs: AttributeSpec[];
let built: Built;
/** The splats where no node moves them. */
let plain: SplatCloud;
beforeAll(async () => {
  specs = attributes();
  built = await buildGltf([{ attributes: specs, splat: SPLAT_EXTENSION }]);
  plain = await parseGltf(glb(built.json, built.bin));
});

/** The file's own value of `name` for splat i (`size` components). */
const fileValue = (name: string, i: number, size: number): number[] =>
  [...specs.find((a) => a.name === name)!.data.subarray(i * size, (i + 1) * size)];

/**
 * Reads the built primitive under `nodes` (the mesh on the last one), and
 * checks it against the global transform (linear part L in glTF's axes,
 * translation t): centres, covariances by the extension's formula, and the
 * colour seen along directions, turned by `axes` (L's columns made unit).
 */
async function expectPlaced(nodes: object[], linear: M3, t: readonly number[], axes: M3, warnings: string[] = []): Promise<void> {
  const json = structuredClone(built.json);
  json.nodes = nodes;
  json.scenes = [{ nodes: [0] }];
  const said: string[] = [];
  const cloud = await loadSplatFile(glb(json, built.bin), 'placed.glb', { onWarning: (w) => said.push(w) });
  expect(said).toEqual(warnings);
  // In the reader's frame (PLY axes): L' = F L F, t' = F t, the axes F Q F.
  const L = mul(F, mul(linear, F));
  const Q = mul(F, mul(axes, F));
  const t2 = apply(F, t);
  for (let i = 0; i < count; i++) {
    const centre = apply(L, [...plain.positions.subarray(3 * i, 3 * i + 3)]).map((v, a) => v + t2[a]!);
    for (let a = 0; a < 3; a++) expect(cloud.positions[3 * i + a]).toBeCloseTo(centre[a]!, 4);
    // The extension's Σ = L C Cᵀ Lᵀ, C from the file's quaternion (x y z w) and scales, brought to the reader's frame.
    const C = covariance(fileValue(`${KHR}:ROTATION`, i, 4), fileValue(`${KHR}:SCALE`, i, 3));
    const expected = mul(F, mul(mul(linear, mul(C, transpose(linear))), F));
    const got = cloudCovariance(cloud, i);
    const size = Math.max(...expected.map(Math.abs));
    for (let k = 0; k < 9; k++) expect(Math.abs(got[k]! - expected[k]!) / size).toBeLessThan(2e-6);
    expect(Math.abs(Math.hypot(...cloud.rotations.subarray(4 * i, 4 * i + 4)) - 1)).toBeLessThan(1e-6);
    for (let j = 0; j < 4; j++) {
      const d = direction();
      const seen = colourSeen(cloud, i, d);
      const before = colourSeen(plain, i, apply(transpose(Q), d));
      for (let c = 0; c < 3; c++) expect(seen[c]).toBeCloseTo(before[c]!, 5);
    }
  }
}

describe('splats placed by their nodes', () => {
  it('a parent\'s matrix and a child\'s translation, rotation and uniform scale: centres, shapes and view-dependent colour turned', async () => {
    const r1 = rotationOf(turn([1, 2, 3], 0.7));
    const q2 = turn([0, 1, 1], 1.1);
    const linear = mul(r1, mul(rotationOf(q2), [2, 0, 0, 0, 2, 0, 0, 0, 2]));
    const t = apply(r1, [0.5, 0, -1]).map((v, a) => v + [4, -1, 2][a]!);
    await expectPlaced(
      [{ matrix: matrix(r1, [4, -1, 2]), children: [1] }, { mesh: 0, translation: [0.5, 0, -1], rotation: q2, scale: [2, 2, 2] }],
      linear, t, mul(r1, rotationOf(q2)),
    );
  });

  it('scales that differ between a node\'s axes: each splat\'s covariance as the extension defines it, its SH turned by the rotation alone', async () => {
    const q = turn([1, -1, 0.5], 2.3);
    const linear = mul(rotationOf(q), [1, 0, 0, 0, 3, 0, 0, 0, 0.5]);
    await expectPlaced([{ mesh: 0, rotation: q, scale: [1, 3, 0.5], translation: [0, 1, 0] }], linear, [0, 1, 0], rotationOf(q));
  });

  it('a mirror (a negative scale): the mirror image, SH included, with a warning', async () => {
    await expectPlaced(
      [{ mesh: 0, scale: [-1, 1, 1] }], [-1, 0, 0, 0, 1, 0, 0, 0, 1], [0, 0, 0], [-1, 0, 0, 0, 1, 0, 0, 0, 1],
      ['meshes[0].primitives[0] is mirrored by its node (a negative scale): read as its mirror image, view-dependent colour included, which the extension leaves undefined'],
    );
  });
});
