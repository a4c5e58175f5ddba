/**
 * What a Streamed SOG world draws this frame (docs/streamed-worlds-design.md,
 * part 2): per leaf of its tree (src/io/lod/lod-meta.ts) in view, the
 * coarsest level of detail whose error, projected to the screen, stays
 * under a threshold in pixels; under a splat budget; never a hole where
 * something of a leaf has arrived; and which chunk files to fetch next.
 * Pure and DOM-free: the camera, the index and what is resident in, runs to
 * draw and files to fetch out.
 */
import { mat4, type ReadonlyVec3 } from 'gl-matrix';
import { cameraMatrices, type CameraFile } from './camera-file';
import type { LodIndex, LodNode, LodRun } from '../io/lod/lod-meta';

/** A leaf as the choice sees it: its box and, per level, its run and its error in scene units (null: no run). */
export interface WorldLeaf {
  min: readonly [number, number, number];
  max: readonly [number, number, number];
  runs: readonly (LodRun | null)[];
  errors: readonly (number | null)[];
}

/**
 * The leaves of `index`, with each level's error: the index's own where it
 * has them, else the spacing of the level's splats beyond the finest
 * level's. Splats of a capture lie on surfaces, so the spacing is taken
 * over the box's largest face: √(area / count).
 */
export function worldLeaves(index: LodIndex): WorldLeaf[] {
  const leaves: WorldLeaf[] = [];
  const pending: LodNode[] = [index.tree];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.children.length > 0) {
      for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]!);
      continue;
    }
    const { min, max } = node.bound;
    const [x, y, z] = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
    const area = Math.max(x * y, y * z, x * z, 1e-12);
    const spacing = node.runs.map((run) => (run && run.count > 0 ? Math.sqrt(area / run.count) : null));
    const finest = spacing.find((s) => s !== null) ?? 0;
    const errors = node.runs.map((run, level) => {
      if (!run || run.count === 0) return null;
      return node.errors ? node.errors[level]! : Math.max(0, spacing[level]! - finest);
    });
    leaves.push({ min, max, runs: node.runs, errors });
  }
  return leaves;
}

/** The camera as the choice needs it. */
export interface WorldView {
  eye: ReadonlyVec3;
  /** The frustum's six planes (a, b, c, d): a point is inside where a·x + b·y + c·z + d ≥ 0 for all. */
  planes: Float64Array;
  /** Screen pixels a unit of scene spans at distance 1 (the viewport height over 2·tan(fovY / 2)). */
  pixelsPerUnit: number;
}

/** The view of a camera file (the viewer's camera gives the same through cameraFileOf). */
export function worldView(camera: CameraFile): WorldView {
  const view = mat4.create();
  const projection = mat4.create();
  cameraMatrices(camera, view, projection);
  const m = mat4.multiply(mat4.create(), projection, view);
  // Rows of the clip transform (gl-matrix is column-major): left, right, bottom, top, near (z ≥ 0, WebGPU's depth range).
  const row = (r: number) => [m[r]!, m[4 + r]!, m[8 + r]!, m[12 + r]!];
  const [r0, r1, r2, r3] = [row(0), row(1), row(2), row(3)];
  const combos = [r3.map((v, i) => v + r0[i]!), r3.map((v, i) => v - r0[i]!), r3.map((v, i) => v + r1[i]!), r3.map((v, i) => v - r1[i]!), r2];
  const planes = new Float64Array(24);
  combos.forEach((p, i) => planes.set(p, 4 * i));
  // No far plane (the projection's far is infinite): the sixth plane keeps everything.
  planes.set([0, 0, 0, 1], 20);
  return { eye: camera.eye, planes, pixelsPerUnit: camera.height / (2 * Math.tan((camera.fovy_deg * Math.PI) / 360)) };
}

export interface LodChoiceOptions {
  /** The most error a leaf may show, in pixels. */
  thresholdPx: number;
  /** The most splats drawn. */
  budget: number;
  /** Whether chunk file `file` is on the GPU. */
  resident: (file: number) => boolean;
}

export interface DrawnRun {
  leaf: number;
  level: number;
  run: LodRun;
}

export interface LodChoice {
  /** What is drawn: the wanted level where resident, else the nearest coarser resident one, else the nearest finer. */
  draw: DrawnRun[];
  drawnSplats: number;
  /** Per leaf the level wanted (−1: not drawn: out of view, or left out by the budget). */
  wanted: Int32Array;
  wantedSplats: number;
  /** The threshold the budget allowed (≥ the one asked for). */
  thresholdPx: number;
  /** Leaves in view that even their coarsest level could not keep within the budget. */
  leftOut: number;
  /** Chunk files to fetch, most needed first. */
  fetch: number[];
}

/** Chooses what `leaves` draw from `view` (see the file's header). */
export function chooseLevels(leaves: readonly WorldLeaf[], view: WorldView, options: LodChoiceOptions): LodChoice {
  const n = leaves.length;
  const distance = new Float64Array(n);
  const inView: number[] = [];
  for (let i = 0; i < n; i++) {
    distance[i] = boxDistance(leaves[i]!, view.eye);
    if (boxInView(leaves[i]!, view.planes)) inView.push(i);
  }
  const wanted = new Int32Array(n).fill(-1);
  const choose = (thresholdPx: number): number => {
    let total = 0;
    for (const i of inView) {
      wanted[i] = levelFor(leaves[i]!, distance[i]!, view.pixelsPerUnit, thresholdPx);
      total += leaves[i]!.runs[wanted[i]!]?.count ?? 0;
    }
    return total;
  };
  let thresholdPx = options.thresholdPx;
  let wantedSplats = choose(thresholdPx);
  let leftOut = 0;
  if (wantedSplats > options.budget) {
    // A higher threshold never wants more splats: search the lowest that fits, up to all-coarsest.
    let lo = thresholdPx;
    let hi = Math.max(thresholdPx, 1) * 2;
    while (choose(hi) > options.budget && hi < 1e12) hi *= 2;
    for (let step = 0; step < 40 && hi - lo > 1e-3 * lo; step++) {
      const mid = (lo + hi) / 2;
      if (choose(mid) > options.budget) lo = mid;
      else hi = mid;
    }
    thresholdPx = hi;
    wantedSplats = choose(thresholdPx);
    if (wantedSplats > options.budget) {
      // Even the coarsest levels are too many: the farthest leaves go (they are the smallest on screen).
      const byDistance = [...inView].sort((a, b) => distance[b]! - distance[a]!);
      for (const i of byDistance) {
        if (wantedSplats <= options.budget) break;
        wantedSplats -= leaves[i]!.runs[wanted[i]!]?.count ?? 0;
        wanted[i] = -1;
        leftOut++;
      }
    }
  }

  const draw: DrawnRun[] = [];
  let drawnSplats = 0;
  // A file's need: its tier (2: a hole's coarsest level, 1: a hole's wanted level, 0: a finer level
  // than the one shown), then within the tier its value (nearer holes first; larger errors first).
  const need = new Map<number, { tier: number; value: number }>();
  const ask = (file: number, tier: number, value: number) => {
    if (options.resident(file)) return;
    const had = need.get(file);
    if (!had || tier > had.tier || (tier === had.tier && value > had.value)) need.set(file, { tier, value });
  };
  for (const i of inView) {
    const leaf = leaves[i]!;
    const level = wanted[i]!;
    if (level < 0) continue;
    const shown = residentLevel(leaf, level, options.resident);
    if (shown >= 0) {
      draw.push({ leaf: i, level: shown, run: leaf.runs[shown]! });
      drawnSplats += leaf.runs[shown]!.count;
    }
    if (shown === level) continue;
    if (shown < 0) {
      // A hole: its coarsest level first (small, so the hole closes sooner), nearer holes first.
      ask(leaf.runs[coarsest(leaf)]!.file, 2, -distance[i]!);
      ask(leaf.runs[level]!.file, 1, -distance[i]!);
    } else {
      // Largest screen error first: what the leaf shows now.
      ask(leaf.runs[level]!.file, 0, projected(leaf.errors[shown]!, distance[i]!, view.pixelsPerUnit));
    }
  }
  const fetch = [...need].sort((a, b) => b[1].tier - a[1].tier || b[1].value - a[1].value || a[0] - b[0]).map(([file]) => file);
  return { draw, drawnSplats, wanted, wantedSplats, thresholdPx, leftOut, fetch };
}

/** A leaf's error at `distance`, in pixels. */
function projected(error: number, distance: number, pixelsPerUnit: number): number {
  return error === 0 ? 0 : (error * pixelsPerUnit) / Math.max(distance, 1e-9);
}

/** The coarsest level of `leaf` whose error at `distance` is within the threshold; the finest it has if none is. */
function levelFor(leaf: WorldLeaf, distance: number, pixelsPerUnit: number, thresholdPx: number): number {
  let finest = -1;
  for (let level = leaf.runs.length - 1; level >= 0; level--) {
    const error = leaf.errors[level];
    if (error === null || error === undefined) continue;
    finest = level;
    if (projected(error, distance, pixelsPerUnit) <= thresholdPx) return level;
  }
  return finest;
}

function coarsest(leaf: WorldLeaf): number {
  for (let level = leaf.runs.length - 1; level >= 0; level--) if (leaf.runs[level] && leaf.runs[level]!.count > 0) return level;
  return -1;
}

/** The level to show for `level`: itself if resident, else the nearest coarser resident, else the nearest finer; −1 if none. */
function residentLevel(leaf: WorldLeaf, level: number, resident: (file: number) => boolean): number {
  if (hasResident(leaf, level, resident)) return level;
  for (let l = level + 1; l < leaf.runs.length; l++) if (hasResident(leaf, l, resident)) return l;
  for (let l = level - 1; l >= 0; l--) if (hasResident(leaf, l, resident)) return l;
  return -1;
}

/** Whether the leaf has splats at `level` and their chunk is resident (a plain function: called per leaf per frame). */
function hasResident(leaf: WorldLeaf, level: number, resident: (file: number) => boolean): boolean {
  const run = leaf.runs[level];
  return run !== null && run !== undefined && run.count > 0 && resident(run.file);
}

/** Distance from `eye` to the nearest point of the leaf's box (0 inside it). */
function boxDistance(leaf: WorldLeaf, eye: ReadonlyVec3): number {
  let sum = 0;
  for (let a = 0; a < 3; a++) {
    const d = Math.max(leaf.min[a]! - eye[a]!, 0, eye[a]! - leaf.max[a]!);
    sum += d * d;
  }
  return Math.sqrt(sum);
}

/** Whether any of the leaf's box may be in view: no plane has the whole box outside. */
function boxInView(leaf: WorldLeaf, planes: Float64Array): boolean {
  for (let p = 0; p < 6; p++) {
    const [a, b, c, d] = [planes[4 * p]!, planes[4 * p + 1]!, planes[4 * p + 2]!, planes[4 * p + 3]!];
    // The box's corner farthest along the plane's normal.
    const x = a >= 0 ? leaf.max[0] : leaf.min[0];
    const y = b >= 0 ? leaf.max[1] : leaf.min[1];
    const z = c >= 0 ? leaf.max[2] : leaf.min[2];
    if (a * x + b * y + c * z + d < 0) return false;
  }
  return true;
}
