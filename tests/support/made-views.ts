/**
 * Made scenes seen from the origin down −z (y up, 60° vertical field of
 * view): the camera, and splats placed around its window's edges, so that
 * a renderer's handling of splats that cross the window's borders can be
 * compared with the CPU reference.
 */
import type { CameraFile } from '../../src/app/camera/camera-file';
import type { MadeSplat } from './gpu-fixture';

/** A camera at the origin looking down −z (the made scenes), y up. */
export function madeCamera(width: number, height: number, background: readonly [number, number, number]): CameraFile {
  return { width, height, fovy_deg: 60, eye: [0, 0, 0], target: [0, 0, -1], up: [0, 1, 0], background: [...background], sh_degree: 0 };
}

/** Made splats around the edges of madeCamera's width × height window at depth 5: centred on, inside and outside each border and corner. */
export function edgeSplats(width: number, height: number): MadeSplat[] {
  const depth = 5;
  const halfY = depth * Math.tan(Math.PI / 6);
  const halfX = (halfY * width) / height;
  const splats: MadeSplat[] = [];
  let k = 0;
  for (const fx of [-1.15, -1, -0.9, -0.4, 0, 0.5, 0.92, 1, 1.1]) {
    for (const fy of [-1.2, -1, -0.85, 0, 0.3, 0.95, 1, 1.12]) {
      if (Math.abs(fx) < 0.85 && Math.abs(fy) < 0.8) continue; // the borders only
      k++;
      const s = 0.15 + 0.35 * ((k * 7) % 5) / 4;
      splats.push({
        position: [fx * halfX, fy * halfY, -depth - 0.01 * k],
        scale: [s, 0.4 * s + 0.05, 0.2],
        rotation: [1, 0, 0, 0.3 * ((k % 7) - 3)],
        opacity: 0.35 + 0.6 * (((k * 5) % 9) / 8),
        colour: [((k * 3) % 10) / 10, ((k * 7) % 10) / 10, ((k * 11) % 10) / 10],
      });
    }
  }
  return splats;
}
