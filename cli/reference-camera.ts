/**
 * The reference rasterizer (src/render/reference-rasterizer.ts) at a camera
 * file: the view matrix and frame parameters the GPU frame gets from the
 * same file, so the two pictures compare pixel for pixel. DOM-free; the
 * render command and the tests use it.
 */
import { mat4 } from 'gl-matrix';
import { cameraMatrices, type CameraFile } from '../src/app/camera/camera-file';
import { renderReference, type ReferenceOrder, type ReferencePicture } from '../src/render/reference-rasterizer';
import type { SplatCloud } from '../src/scene/splat-cloud';
import type { ScreenFilter } from '../src/scene/anti-aliasing';

export interface ReferenceOptions {
  /** Multiplies every splat's scales (the viewer's splat-scale setting); 1 by default. */
  splatScale?: number;
  /** The screen filter (src/scene/anti-aliasing.ts); the reference's own +0.3 px² by default. */
  screenFilter?: ScreenFilter;
  /** A lens shift in NDC, as the viewer's projection has beside overlays (projectionMatrix()[8], [9]); by default the camera file's. */
  shiftNdc?: readonly [number, number];
  /** The order each pixel blends in: the reference's centre depths by default (bench/reference-pixel-order.ts has the per-pixel one). */
  order?: ReferenceOrder;
}

/** Renders `cloud` from a camera file as the reference rasterizer does (cameraMatrices gives the view). */
export function renderReferenceCamera(cloud: SplatCloud, camera: CameraFile, options: ReferenceOptions = {}): ReferencePicture {
  const view = mat4.create();
  const projection = mat4.create();
  cameraMatrices(camera, view, projection);
  const shift = options.shiftNdc ?? [projection[8]!, projection[9]!];
  return renderReference(cloud, {
    view,
    eye: camera.eye,
    fovY: (camera.fovy_deg * Math.PI) / 180,
    width: camera.width,
    height: camera.height,
    shDegree: camera.sh_degree,
    splatScale: options.splatScale ?? 1,
    screenFilter: options.screenFilter,
    background: camera.background,
    shiftNdc: shift[0],
    shiftNdcY: shift[1],
  }, options.order);
}
