/**
 * Which splats of a scene to save: all of them, those a frame keeps in view
 * (the projector's keep rule, src/render/splat-keep-rule.ts: the splat's
 * quad, out to 3σ, overlaps the window), or those whose centre lies in a
 * box (min and max corners in scene coordinates, inclusive). "Save scene
 * as" and the convert command select through here. DOM-free.
 */
import { mat4, vec3 } from 'gl-matrix';
import { cameraMatrices, type CameraFile } from '../camera/camera-file';
import type { FrameCamera } from '../../render/frame-uniforms';
import { keptDepths } from '../../render/splat-keep-rule';
import { allocateSplatCloud, computeBounds, shCoefficients, type Bounds, type SplatCloud } from '../../scene/splat-cloud';
import type { ScreenFilter } from '../../scene/anti-aliasing';
import type { WritableFormat } from '../../io/formats/save-formats';

export type SplatSelection =
  | { keep: 'all' }
  | { keep: 'in-view'; frame: FrameCamera }
  | { keep: 'box'; box: Bounds };

/** A selection's kind, as the panel offers it. */
export type SelectionKind = SplatSelection['keep'];

/** A selection whose "in view" means the view on screen (the Viewer fills in its frame). */
export type ViewSelection = Exclude<SplatSelection, { keep: 'in-view' }> | { keep: 'in-view' };

/** For each splat, whether the selection keeps it. */
export function selectionMask(cloud: SplatCloud, selection: SplatSelection): Uint8Array {
  const keep = new Uint8Array(cloud.count);
  switch (selection.keep) {
    case 'all':
      keep.fill(1);
      break;
    case 'in-view': {
      const depths = keptDepths(cloud, selection.frame);
      for (let i = 0; i < cloud.count; i++) keep[i] = Number.isNaN(depths[i]!) ? 0 : 1;
      break;
    }
    case 'box': {
      const { min, max } = selection.box;
      const p = cloud.positions;
      for (let i = 0; i < cloud.count; i++) {
        const x = p[3 * i]!, y = p[3 * i + 1]!, z = p[3 * i + 2]!;
        keep[i] = x >= min[0] && x <= max[0] && y >= min[1] && y <= max[1] && z >= min[2] && z <= max[2] ? 1 : 0;
      }
      break;
    }
  }
  return keep;
}

/** The splats a selection keeps, in their order, as a scene of their own (the scene itself when it keeps all). */
export function selectSplats(cloud: SplatCloud, selection: SplatSelection): SplatCloud {
  if (selection.keep === 'all') return cloud;
  const keep = selectionMask(cloud, selection);
  let count = 0;
  for (let i = 0; i < cloud.count; i++) count += keep[i]!;
  const out = allocateSplatCloud(count, cloud.shDegree);
  const shFloats = shCoefficients(cloud.shDegree) * 3;
  for (let i = 0, j = 0; i < cloud.count; i++) {
    if (!keep[i]) continue;
    out.positions.set(cloud.positions.subarray(3 * i, 3 * i + 3), 3 * j);
    out.scales.set(cloud.scales.subarray(3 * i, 3 * i + 3), 3 * j);
    out.rotations.set(cloud.rotations.subarray(4 * i, 4 * i + 4), 4 * j);
    out.opacities[j] = cloud.opacities[i]!;
    out.dc.set(cloud.dc.subarray(3 * i, 3 * i + 3), 3 * j);
    out.sh.set(cloud.sh.subarray(i * shFloats, (i + 1) * shFloats), j * shFloats);
    j++;
  }
  out.bounds = computeBounds(out.positions, count);
  if (cloud.antiAliasing) out.antiAliasing = cloud.antiAliasing;
  if (cloud.axes) out.axes = cloud.axes;
  return out;
}

/**
 * A box from "minx,miny,minz,maxx,maxy,maxz" (scene coordinates); throws,
 * saying what is wrong, for anything else or a min past its max.
 */
export function parseBox(text: string): Bounds {
  const values = text.split(',').map((v) => v.trim());
  const numbers = values.map(Number);
  if (values.length !== 6 || values.some((v) => v === '') || numbers.some((v) => !Number.isFinite(v))) {
    throw new Error(`a box is six numbers "minx,miny,minz,maxx,maxy,maxz", got "${text}"`);
  }
  const box: Bounds = { min: [numbers[0]!, numbers[1]!, numbers[2]!], max: [numbers[3]!, numbers[4]!, numbers[5]!] };
  const axis = [0, 1, 2].find((a) => box.min[a]! > box.max[a]!);
  if (axis !== undefined) throw new Error(`the box's min ${'xyz'[axis]} (${box.min[axis]}) is past its max (${box.max[axis]})`);
  return box;
}

/** The frame a camera file shows (its size, view and field of view), drawn with `screenFilter`: what "in view" means for it. */
export function cameraFrame(camera: CameraFile, screenFilter?: ScreenFilter): FrameCamera {
  const frame: FrameCamera = {
    view: mat4.create(), projection: mat4.create(), eye: vec3.fromValues(...camera.eye),
    fovY: (camera.fovy_deg * Math.PI) / 180, width: camera.width, height: camera.height,
    shDegree: 0, splatScale: 1, screenFilter,
  };
  cameraMatrices(camera, frame.view, frame.projection);
  return frame;
}

/** What saving wrote: the file's bytes, and how many of the scene's splats it holds. */
export interface SavedSplats {
  bytes: Uint8Array;
  splats: number;
  of: number;
}

/** The splats `selection` keeps, as a file of `format`; throws when it keeps none. */
export async function saveSplats(cloud: SplatCloud, format: WritableFormat, selection: SplatSelection): Promise<SavedSplats> {
  const kept = selectSplats(cloud, selection);
  if (kept.count === 0) {
    const where = selection.keep === 'box'
      ? `inside the box from (${selection.box.min.join(', ')}) to (${selection.box.max.join(', ')})`
      : 'in view';
    throw new Error(`Nothing to save: none of the scene's ${cloud.count.toLocaleString('en-US')} splats is ${where}`);
  }
  return { bytes: await format.writer.write(kept), splats: kept.count, of: cloud.count };
}
