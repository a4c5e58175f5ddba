/**
 * What a Streamed SOG world draws this frame (docs/streamed-worlds-design.md,
 * part 2): per leaf of its tree (src/io/lod/lod-meta.ts) in view, the
 * coarsest level of detail whose error, projected to the screen, stays
 * under a threshold in pixels; under a splat budget; never a hole where
 * something of a leaf has arrived; and which chunk files to fetch next.
 * Pure and DOM-free: the camera, the index and what is resident in, runs to
 * draw and files to fetch out.
 *
 * A viewer makes `worldChoice(index)` once per world and calls its
 * `choose(view, options)` each frame (world-choice.ts: the leaves in flat
 * arrays, culling by the tree, the budget's threshold by one selection);
 * `chooseLevels(worldLeaves(index), view, options)` gives the same with a
 * result of its own.
 */
import { mat4, type ReadonlyMat4, type ReadonlyVec3 } from 'gl-matrix';
import { cameraMatrices, type CameraFile } from '../camera/camera-file';
import type { LodIndex, LodNode } from '../../io/lod/lod-meta';
import { forEachLeaf } from '../../io/lod/lod-outline';
import { WorldChoice } from './world-choice';
import type { LodChoice, LodChoiceOptions, WorldLeaf, WorldView } from './world-choice-types';

export { WorldChoice };
export type { BudgetPolicy, LodChoice, LodChoiceOptions, WorldLeaf, WorldView } from './world-choice-types';

/**
 * The leaves of `index`, with each level's error in scene units: the
 * index's displacements where it has them (how far the level moves the
 * leaf's detail, measured: src/scene/level-displacement.ts), else the
 * spacing of the level's splats beyond the finest level's. Splats of a
 * capture lie on surfaces, so the spacing is taken over the box's largest
 * face: √(area / count). splat-transform's own `errors` are relative image
 * errors with no length in them: they cannot be turned into pixels at a
 * distance, so they are not used here.
 */
export function worldLeaves(index: LodIndex): WorldLeaf[] {
  const leaves: WorldLeaf[] = [];
  forEachLeaf(index.tree, (node) => {
    const { min, max } = node.bound;
    const [x, y, z] = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
    const area = Math.max(x * y, y * z, x * z, 1e-12);
    const spacing = node.runs.map((run) => (run && run.count > 0 ? Math.sqrt(area / run.count) : null));
    const finest = spacing.find((s) => s !== null) ?? 0;
    const errors = node.runs.map((run, level) => {
      if (!run || run.count === 0) return null;
      return node.displacements ? node.displacements[level]! : Math.max(0, spacing[level]! - finest);
    });
    leaves.push({ min, max, runs: node.runs, errors });
  });
  treeOfLeaves.set(leaves, index.tree);
  return leaves;
}

/** The tree each list of worldLeaves came from, so that a choice over the list can walk it. */
const treeOfLeaves = new WeakMap<readonly WorldLeaf[], LodNode>();

/** The view of a camera file (the viewer's camera gives the same through cameraFileOf). */
export function worldView(camera: CameraFile): WorldView {
  const view = mat4.create();
  const projection = mat4.create();
  cameraMatrices(camera, view, projection);
  return frustumView({ view, projection, eye: camera.eye, height: camera.height, fovY: (camera.fovy_deg * Math.PI) / 180 });
}

/** The camera of a frame, as the choice needs it. */
export interface WorldCamera {
  view: ReadonlyMat4;
  projection: ReadonlyMat4;
  eye: ReadonlyVec3;
  /** Pixels. */
  height: number;
  /** Vertical field of view, radians. */
  fovY: number;
}

/** A view to fill with frustumView (one per caller, reused every frame). */
export function createWorldView(): WorldView & { eye: [number, number, number] } {
  return { eye: [0, 0, 0], planes: new Float64Array(24), pixelsPerUnit: 0, screenPixels: 0 };
}

/** Scratch for frustumView: the clip transform. */
const clip = mat4.create();

/**
 * The view of a frame's own matrices (a lens shift moves the frustum: the
 * viewer's beside overlays): the frustum's planes, and the pixels a unit
 * spans at distance 1. Written into `out` (default a new one): the viewer
 * calls it every frame, and allocates nothing.
 */
export function frustumView({ view, projection, eye, height, fovY }: WorldCamera, out = createWorldView()): WorldView {
  const m = mat4.multiply(clip, projection, view);
  // Planes from the rows r of the clip transform (gl-matrix is column-major):
  // left r3 + r0, right r3 - r0, bottom r3 + r1, top r3 - r1, near r2 (z ≥ 0, WebGPU's depth range).
  const planes = out.planes;
  for (let c = 0; c < 4; c++) {
    const [r0, r1, r2, r3] = [m[4 * c]!, m[4 * c + 1]!, m[4 * c + 2]!, m[4 * c + 3]!];
    planes[c] = r3 + r0;
    planes[4 + c] = r3 - r0;
    planes[8 + c] = r3 + r1;
    planes[12 + c] = r3 - r1;
    planes[16 + c] = r2;
    // No far plane (the projection's far is infinite): the sixth keeps everything.
    planes[20 + c] = c === 3 ? 1 : 0;
  }
  out.eye[0] = eye[0]!;
  out.eye[1] = eye[1]!;
  out.eye[2] = eye[2]!;
  out.pixelsPerUnit = height / (2 * Math.tan(fovY / 2));
  // The projection's first two diagonal terms are f / aspect and f: their ratio is the aspect (width over height).
  out.screenPixels = height * height * Math.abs(projection[5]! / projection[0]!);
  return out;
}

/** Whether two views would choose the same (a choice is asked for again only when the view is not). */
export function sameWorldView(a: WorldView, b: WorldView): boolean {
  if (a.pixelsPerUnit !== b.pixelsPerUnit) return false;
  for (let i = 0; i < 3; i++) if (a.eye[i] !== b.eye[i]) return false;
  for (let i = 0; i < a.planes.length; i++) if (a.planes[i] !== b.planes[i]) return false;
  return true;
}

/** A world's choice made once, to call per frame: faster than chooseLevels, which copies its result. */
export function worldChoice(index: LodIndex): WorldChoice {
  return new WorldChoice(worldLeaves(index), index.tree);
}

/** Each leaves array's prepared choice, made on its first call. */
const prepared = new WeakMap<readonly WorldLeaf[], WorldChoice>();

/**
 * Chooses what `leaves` draw from `view` (see the file's header), with a
 * result of its own (WorldChoice.choose's, its lists copied). The leaves
 * are read on the first call and kept: they are not to change after it.
 */
export function chooseLevels(leaves: readonly WorldLeaf[], view: WorldView, options: LodChoiceOptions): LodChoice {
  let choice = prepared.get(leaves);
  if (!choice) prepared.set(leaves, (choice = new WorldChoice(leaves, treeOfLeaves.get(leaves) ?? null)));
  const shared = choice.choose(view, options);
  return { ...shared, draw: [...shared.draw], wanted: shared.wanted.slice(), fetch: [...shared.fetch] };
}

