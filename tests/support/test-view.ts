/**
 * The small offscreen view the GPU tests render a real scene through: a
 * 64×48 target, a camera a few units from the scene's median point looking
 * at it, and how much of a read-back picture is not background.
 */
import { mat4, vec3 } from 'gl-matrix';
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

/** Fraction of the read-back picture's pixels that differ from the background by more than 12/255 summed. */
export function coveredFraction(pixels: Uint8Array): number {
  let covered = 0;
  for (let y = 0; y < VIEW_HEIGHT; y++) {
    for (let x = 0; x < VIEW_WIDTH; x++) {
      const p = y * VIEW_BYTES_PER_ROW + 4 * x;
      let d = 0;
      for (let c = 0; c < 3; c++) d += Math.abs(pixels[p + c]! - VIEW_BACKGROUND[c]! * 255);
      if (d > 12) covered++;
    }
  }
  return covered / (VIEW_WIDTH * VIEW_HEIGHT);
}
