/**
 * glTF cross-checked with @playcanvas/splat-transform, a separate
 * implementation of KHR_gaussian_splatting: the .glb it writes from a real
 * scene, read here through the format registry, holds every splat of the
 * scene as the scene's own file reads here, to float32 rounding.
 *
 * splat-transform writes its "engine space", the PLY's axes turned 180°
 * about z (its Transform.PLY); this reader takes a scene's PLY axes (x
 * right, y down, z forward) to glTF's by a 180° turn about x, so that the
 * capture's front faces glTF's +z as the glTF specification asks. The two
 * differ by a half turn about y, which the comparison applies: positions
 * (-x, y, -z), rotations composed with it, SH coefficients by their
 * parity in x and z. splat-transform 3.7 reads no .glb, so the other
 * direction cannot be checked.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createChunkDataPool, materializeToDataTable, MemoryFileSystem, MemoryReadFileSystem, readFile, writeGlb,
} from '@playcanvas/splat-transform';
import { detectSplatFormat, loadSplatFile } from '../../src/io/parse-splat-file';
import { shCoefficients, type SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { realScene } from '../support/real-scenes';

/** The .glb splat-transform writes for a PLY scene, through its own reader and writer. */
async function splatTransformGlb(ply: Uint8Array): Promise<Uint8Array> {
  const input = new MemoryReadFileSystem();
  input.set('scene.ply', ply);
  const [source] = await readFile({ filename: 'scene.ply', inputFormat: 'ply', fileSystem: input });
  let table;
  try {
    table = await materializeToDataTable(source!, createChunkDataPool());
  } finally {
    source!.close();
  }
  const output = new MemoryFileSystem();
  await writeGlb({ filename: 'scene.glb', dataTable: table }, output);
  return output.results.get('scene.glb')!;
}

/** The sign a half turn about y gives SH coefficient k (degrees 1-3): its basis function's parity in x and z. */
const HALF_TURN_Y_SH_SIGNS = [
  1, -1, -1, // y, z, x
  -1, -1, 1, 1, 1, // xy, yz, 2z²-x²-y², xz, x²-y²
  1, 1, 1, -1, -1, -1, -1, // y(3x²-y²), xyz, y(4z²-x²-y²), z(...), x(...), z(x²-y²), x(x²-3y²)
];

/**
 * Column `a` of the rotation matrix of quaternion (w, x, y, z), made unit
 * first: where the splat's local axis a points. (splat-transform stores the
 * trainer's quaternions as they are, most not unit; the reader keeps one
 * that is unit to 1e-6 as stored, and that small difference is not an error.)
 */
function axis(q: ArrayLike<number>, a: number): [number, number, number] {
  const n = Math.hypot(q[0]!, q[1]!, q[2]!, q[3]!);
  const [w, x, y, z] = [q[0]! / n, q[1]! / n, q[2]! / n, q[3]! / n];
  if (a === 0) return [1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)];
  if (a === 1) return [2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)];
  return [2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)];
}

/** The largest error of each attribute between `glb` and `scene` turned half about y. */
function largestErrors(glb: SplatCloud, scene: SplatCloud): Record<string, number> {
  const worst: Record<string, number> = { position: 0, rotation: 0, unit: 0, scale: 0, opacity: 0, dc: 0, sh: 0 };
  const note = (name: string, value: number) => {
    // NaN is the worst of all.
    if (!(value <= worst[name]!)) worst[name] = value;
  };
  const relative = (a: number, b: number) => Math.abs(a - b) / Math.max(1, Math.abs(b));
  const K = shCoefficients(scene.shDegree);
  for (let i = 0; i < scene.count; i++) {
    const [x, y, z] = scene.positions.subarray(3 * i, 3 * i + 3);
    const turned = [-x!, y!, -z!];
    for (let a = 0; a < 3; a++) {
      note('position', relative(glb.positions[3 * i + a]!, turned[a]!));
      note('scale', Math.abs(glb.scales[3 * i + a]! / scene.scales[3 * i + a]! - 1));
      note('dc', relative(glb.dc[3 * i + a]!, scene.dc[3 * i + a]!));
      // A Gaussian is its own mirror image across each principal axis, so the
      // two files may give different quaternions of one shape: compared are its
      // axes, each up to its sign, after the half turn about y.
      const [ax, ay, az] = axis(scene.rotations.subarray(4 * i, 4 * i + 4), a);
      const [bx, by, bz] = axis(glb.rotations.subarray(4 * i, 4 * i + 4), a);
      note('rotation', 1 - Math.abs(-ax * bx + ay * by - az * bz));
    }
    note('unit', Math.abs(Math.hypot(...glb.rotations.subarray(4 * i, 4 * i + 4)) - 1));
    note('opacity', Math.abs(glb.opacities[i]! - scene.opacities[i]!));
    for (let k = 0; k < K; k++) {
      for (let c = 0; c < 3; c++) {
        const at = (i * K + k) * 3 + c;
        note('sh', relative(glb.sh[at]!, scene.sh[at]! * HALF_TURN_Y_SH_SIGNS[k]!));
      }
    }
  }
  return worst;
}

describe('a .glb written by splat-transform from a real scene', () => {
  it.each([
    ['inria_kacytran_iter7000_9k_sh3.ply', 9080, 3],
    ['inria_karangkidul_150k_sh3_decoded.ply', 150_000, 3],
  ] as const)('%s reads to the scene itself, turned half about y', async (name, count, shDegree) => {
    const bytes = await splatTransformGlb(new Uint8Array(readFileSync(scenePath(name))));
    expect(detectSplatFormat(bytes, 'scene.glb')).toBe('glb');
    const glb = await loadSplatFile(bytes, 'scene.glb');
    const scene = await realScene(name);
    expect({ count: glb.count, shDegree: glb.shDegree }).toEqual({ count, shDegree });
    // Both read float32 values and apply the same activations; splat-transform
    // turns its values in double precision: a float32 step (6e-8) or two, and
    // rotation axes that are unit to float32 (1 − |cos| to 1e-6).
    const worst = largestErrors(glb, scene);
    const tolerance = { position: 2.4e-7, rotation: 1e-6, unit: 1e-6, scale: 2.4e-7, opacity: 1.2e-7, dc: 2.4e-7, sh: 2.4e-7 };
    for (const [what, bound] of Object.entries(tolerance)) expect(worst[what], what).toBeLessThanOrEqual(bound);
  }, 60_000);
});
