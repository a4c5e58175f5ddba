/**
 * Random worlds and cameras for the level choice's tests: trees of boxes
 * with runs, counts and errors drawn from a seeded random, and cameras
 * anywhere around them; and the choice's first step written plainly (each
 * leaf in view tested against every plane, its level found by scanning).
 */
import type { CameraFile } from '../../src/app/camera/camera-file';
import { worldView, type WorldLeaf, type WorldView } from '../../src/app/world/world-lod';
import type { LodIndex, LodNode } from '../../src/io/lod/lod-meta';

type Vec3 = [number, number, number];

/**
 * A random world: a tree of boxes 1 to 4 children wide and up to 4 deep,
 * each leaf with up to `levels` runs over `files` files; splats per level
 * falling with the level where `monotone`, any otherwise; errors of the
 * index's own on some leaves. Inner nodes' bounds in the index are left
 * loose or too small on purpose: the choice must not trust them.
 */
export function randomWorld(rand: () => number, monotone: boolean): LodIndex {
  const levels = 1 + Math.floor(rand() * 4);
  const files = 1 + Math.floor(rand() * 12);
  const counts = new Array<number>(levels).fill(0);
  let nodes = 0;
  let leaves = 0;
  const grow = (min: Vec3, max: Vec3, depth: number): LodNode => {
    nodes++;
    const path = `node ${nodes}`;
    if (depth >= 4 || (depth > 0 && rand() < 0.3)) {
      leaves++;
      let count = 1 + Math.floor(rand() * 5000);
      const runs = Array.from({ length: levels }, (_, level) => {
        count = monotone ? Math.floor(count / (1 + rand() * 4)) : Math.floor(rand() * 5000);
        if (rand() < 0.15 || count === 0) return null;
        counts[level]! += count;
        return { file: Math.floor(rand() * files), offset: 0, count };
      });
      const displacements = rand() < 0.3 ? runs.map(() => rand() * 2) : null;
      return { path, bound: { min, max }, children: [], runs, errors: null, displacements };
    }
    const children: LodNode[] = [];
    for (let c = 0, wide = 1 + Math.floor(rand() * 4); c < wide; c++) {
      const a = [0, 1, 2].map((axis) => min[axis]! + rand() * (max[axis]! - min[axis]!)) as Vec3;
      const b = [0, 1, 2].map((axis) => min[axis]! + rand() * (max[axis]! - min[axis]!)) as Vec3;
      children.push(grow(a.map((v, axis) => Math.min(v, b[axis]!)) as Vec3, a.map((v, axis) => Math.max(v, b[axis]!)) as Vec3, depth + 1));
    }
    const shrink = rand() < 0.3 ? 0.5 : 1;
    return { path, bound: { min: min.map((v) => v * shrink) as Vec3, max: max.map((v) => v * shrink) as Vec3 }, children, runs: [], errors: null, displacements: null };
  };
  const tree = grow([-100, -20, -100], [100, 20, 100], 0);
  return { levels, counts, filenames: Array.from({ length: files }, (_, f) => `0_${f}/meta.json`), environment: null, tree, nodes, leaves };
}

/** The lod-meta.json text of `index` (parseLodMeta reads it back as the same world, but for its nodes' paths). */
export function lodMetaText(index: LodIndex): string {
  const node = (n: LodNode): unknown =>
    n.children.length > 0
      ? { bound: n.bound, children: n.children.map(node) }
      : {
          bound: n.bound,
          lods: Object.fromEntries(n.runs.flatMap((run, level) => (run ? [[String(level), run]] : []))),
          ...(n.errors ? { errors: n.errors } : {}),
          ...(n.displacements ? { displacements: n.displacements } : {}),
        };
  return JSON.stringify({ version: 1, lodLevels: index.levels, filenames: index.filenames, environment: index.environment, tree: node(index.tree) });
}

export function randomView(rand: () => number): WorldView {
  const at = (spread: number): Vec3 => [(rand() - 0.5) * spread, (rand() - 0.5) * spread * 0.3, (rand() - 0.5) * spread];
  const camera: CameraFile = {
    width: 640 + Math.floor(rand() * 1280), height: 360 + Math.floor(rand() * 720), fovy_deg: 20 + rand() * 80,
    eye: at(rand() < 0.5 ? 150 : 400), target: at(100), up: [0, 1, 0], background: [0, 0, 0], sh_degree: 0,
  };
  return worldView(camera);
}

/** Whether any of the box may be in view: no plane has it all outside. */
export function boxInView(leaf: WorldLeaf, planes: Float64Array): boolean {
  for (let p = 0; p < 6; p++) {
    const [a, b, c, d] = [planes[4 * p]!, planes[4 * p + 1]!, planes[4 * p + 2]!, planes[4 * p + 3]!];
    if (a * (a >= 0 ? leaf.max[0] : leaf.min[0]) + b * (b >= 0 ? leaf.max[1] : leaf.min[1]) + c * (c >= 0 ? leaf.max[2] : leaf.min[2]) + d < 0) return false;
  }
  return true;
}

export const distanceTo = (leaf: WorldLeaf, eye: ArrayLike<number>) => Math.sqrt([0, 1, 2].reduce((sum, a) => sum + Math.max(leaf.min[a]! - eye[a]!, 0, eye[a]! - leaf.max[a]!) ** 2, 0));
export const pixelsOf = (error: number, distance: number, view: WorldView) => (error === 0 ? 0 : (error * view.pixelsPerUnit) / Math.max(distance, 1e-9));

/** Each leaf in view's level at `thresholdPx` (−1 where out of view or without levels), its distance, and the splats wanted. */
export function levelsAt(leaves: readonly WorldLeaf[], view: WorldView, thresholdPx: number) {
  const wanted = new Int32Array(leaves.length).fill(-1);
  const distance = leaves.map((leaf) => distanceTo(leaf, view.eye));
  const inView = leaves.flatMap((leaf, i) => (boxInView(leaf, view.planes) ? [i] : []));
  let splats = 0;
  for (const i of inView) {
    const leaf = leaves[i]!;
    const usable = leaf.errors.flatMap((e, level) => (e === null ? [] : [level]));
    const within = usable.filter((level) => pixelsOf(leaf.errors[level]!, distance[i]!, view) <= thresholdPx);
    wanted[i] = within.length > 0 ? Math.max(...within) : usable.length > 0 ? Math.min(...usable) : -1;
    splats += leaf.runs[wanted[i]!]?.count ?? 0;
  }
  return { wanted, distance, inView, splats };
}
