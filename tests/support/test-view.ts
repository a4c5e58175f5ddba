/**
 * The small offscreen view the GPU tests render a real scene through: a
 * 64×48 target, a camera a few units from the scene's median point looking
 * at it, and how much of a read-back picture is not background.
 */
import { mat4, vec3 } from 'gl-matrix';
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import type { SplatCloud } from '../../src/scene/splat-cloud';

export const VIEW_WIDTH = 64;
export const VIEW_HEIGHT = 48;
/** Read-back rows: 64 RGBA8 pixels are exactly the 256-byte row alignment. */
export const VIEW_BYTES_PER_ROW = 256;
export const VIEW_BACKGROUND = [0.1, 0.2, 0.3] as const;

/** The median splat position, per axis: inside the bulk of a captured scene, whatever its floaters. */
export function medianCentre(cloud: SplatCloud): vec3 {
  const median = (axis: number) => {
    const v = Array.from({ length: cloud.count }, (_, i) => cloud.positions[3 * i + axis]!).sort((a, b) => a - b);
    return v[v.length >> 1]!;
  };
  return vec3.fromValues(median(0), median(1), median(2));
}

/** A camera file `offset` from `cloud`'s median point, looking at it (y down, 60° vertical field of view). */
export function cameraLookingAt(cloud: SplatCloud, offset: readonly [number, number, number], width: number, height: number, background: readonly [number, number, number] = VIEW_BACKGROUND): CameraFile {
  const centre = medianCentre(cloud);
  const eye = vec3.add(vec3.create(), centre, offset);
  return { width, height, fovy_deg: 60, eye: [eye[0]!, eye[1]!, eye[2]!], target: [centre[0]!, centre[1]!, centre[2]!], up: [0, -1, 0], background: [...background], sh_degree: 3 };
}

/** A camera file at `cloud`'s median point, looking along +z (slightly aside): inside the scene. */
export function cameraInsideScene(cloud: SplatCloud, width: number, height: number, background: readonly [number, number, number] = VIEW_BACKGROUND): CameraFile {
  const centre = medianCentre(cloud);
  const target = vec3.add(vec3.create(), centre, [0.3, 0.1, 1]);
  return { ...cameraLookingAt(cloud, [0, 0, 0], width, height, background), target: [target[0]!, target[1]!, target[2]!] };
}

/** Frame parameters looking at `centre` from a few units away (captured scenes: y down). */
export function viewOf(
  centre: vec3,
  scene: Pick<FrameParameters, 'splatCount' | 'shDegree'>,
  keyBits: number,
): FrameParameters {
  const eye = vec3.add(vec3.create(), centre, vec3.fromValues(3, -1, -6));
  const view = mat4.lookAt(mat4.create(), eye, centre, vec3.fromValues(0, -1, 0));
  const fovY = Math.PI / 3;
  const projection = mat4.perspectiveZO(mat4.create(), fovY, VIEW_WIDTH / VIEW_HEIGHT, 0.01, Infinity);
  return { view, projection, eye, fovY, width: VIEW_WIDTH, height: VIEW_HEIGHT, splatScale: 1, keyBits, ...scene };
}

/** An RGBA8 picture, its rows `bytesPerRow` apart (tightly packed unless told). */
export interface Rgba8Picture {
  rgba: Uint8Array;
  width: number;
  height: number;
  bytesPerRow?: number;
}

/** Per row, per pixel: whether it differs from `background` (0..1 RGB) by more than 12/255 summed over RGB. */
export function drawnPixels({ rgba, width, height, bytesPerRow = 4 * width }: Rgba8Picture, background: readonly number[]): boolean[][] {
  return Array.from({ length: height }, (_, y) =>
    Array.from({ length: width }, (_, x) => {
      const p = y * bytesPerRow + 4 * x;
      return [0, 1, 2].reduce((d, c) => d + Math.abs(rgba[p + c]! - background[c]! * 255), 0) > 12;
    }));
}

/** Fraction of the picture's pixels drawn over `background`. */
export function drawnFraction(picture: Rgba8Picture, background: readonly number[]): number {
  return drawnPixels(picture, background).flat().filter(Boolean).length / (picture.width * picture.height);
}

/** Rows from the first to the last with a pixel drawn over `background` (0 when none). */
export function drawnRowSpan(picture: Rgba8Picture, background: readonly number[]): number {
  const rows = drawnPixels(picture, background).map((row) => row.some(Boolean));
  return rows.includes(true) ? rows.lastIndexOf(true) - rows.indexOf(true) + 1 : 0;
}

/** Columns from the first to the last with a pixel drawn over `background` (0 when none). */
export function drawnColumnSpan(picture: Rgba8Picture, background: readonly number[]): number {
  const rows = drawnPixels(picture, background);
  const columns = Array.from({ length: picture.width }, (_, x) => rows.some((row) => row[x]));
  return columns.includes(true) ? columns.lastIndexOf(true) - columns.indexOf(true) + 1 : 0;
}

/** Fraction of the 64×48 read-back picture (VIEW_BYTES_PER_ROW rows) drawn over VIEW_BACKGROUND. */
export function coveredFraction(pixels: Uint8Array): number {
  return drawnFraction({ rgba: pixels, width: VIEW_WIDTH, height: VIEW_HEIGHT, bytesPerRow: VIEW_BYTES_PER_ROW }, VIEW_BACKGROUND);
}

/** The middle of the box that the pixels drawn over `background` span, in shares of the picture's width and height (null when none is drawn). */
export function drawnBoxCentre(picture: Rgba8Picture, background: readonly number[]): [number, number] | null {
  const rows = drawnPixels(picture, background);
  const drawnRows = rows.map((row) => row.some(Boolean));
  const columns = Array.from({ length: picture.width }, (_, x) => rows.some((row) => row[x]));
  if (!drawnRows.includes(true)) return null;
  const middle = (drawn: boolean[], size: number) => (drawn.indexOf(true) + drawn.lastIndexOf(true) + 1) / 2 / size;
  return [middle(columns, picture.width), middle(drawnRows, picture.height)];
}
