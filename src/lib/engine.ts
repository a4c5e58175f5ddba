/**
 * Splats in another engine's frame: for pages whose own renderer (three.js's
 * WebGPURenderer, Babylon.js, a page's own WebGPU code) owns the device, the
 * canvas and the passes. Given the caller's `GPUDevice`, a scene and the
 * camera's two matrices, it culls, projects and GPU-sorts the splats and
 * draws them into the caller's colour texture, over what is already there.
 * No DOM, no worker, no canvas: the scene is read on the calling thread.
 *
 * Depth is shared one way. The caller draws its opaque meshes first, with
 * their depth; the splats are drawn after, each splat's quad at the depth
 * the caller's projection gives its centre, tested against the caller's
 * depth texture and never written to it. Meshes in front hide the splats
 * behind them; splats do not hide meshes drawn later, because a splat has
 * no one depth (it is a density along each ray) and the quads' blend keeps
 * none: draw transparent meshes after the splats, as in any engine's
 * transparent pass.
 *
 * Frames are the viewer's own (src/app/frame/frame-engine.ts): the GPU
 * radix sort with its key width chosen per frame, the quad renderer
 * blending in a float target, resolved over the caller's picture.
 */
import { mat4, vec3 } from 'gl-matrix';
import { FrameEngine, type FrameSettings } from '../app/frame/frame-engine';
import type { SceneSource as FrameScene } from '../app/frame/frame-source';
import type { FrameCamera } from '../render/frame-uniforms';
import type { SplatDrawTarget } from '../render/splat-renderer';
import { deviceLoadLimits } from '../render/renderer-limits';
import { screenFilterFor } from '../scene/anti-aliasing';
import { loadScene } from '../io/scene-source';
import { bufferSource, urlSource } from '../io/web-scene-sources';
import { lastPathSegment } from '../io/path-name';
import type { SplatCloud } from '../scene/splat-cloud';

/** How the splats are drawn into the caller's textures. */
export interface SplatRendererOptions {
  /** The format of the colour texture the splats are drawn into (for a canvas: `navigator.gpu.getPreferredCanvasFormat()`). */
  format: GPUTextureFormat;
  /** The format of the caller's depth texture the splats are tested against; left out, they are drawn over the whole picture. */
  depthFormat?: GPUTextureFormat;
  /**
   * The test that passes a splat nearer than the stored depth: 'less'
   * (the default) for a projection with depth 0 at the near plane, as
   * three.js's WebGPU renderer makes; 'greater' for reversed depth.
   */
  depthCompare?: 'less' | 'less-equal' | 'greater' | 'greater-equal';
}

/**
 * The camera a frame is seen from, as the caller's renderer uses it: two
 * column-major 4×4 matrices (a `Float32Array(16)` or any array of 16).
 */
export interface SplatCamera {
  /** World to view: right-handed, the camera looking down its −z (three.js's `camera.matrixWorldInverse`). */
  view: ArrayLike<number>;
  /** View to clip: a perspective projection with WebGPU's depth range (three.js's `camera.projectionMatrix` under its WebGPU renderer). */
  projection: ArrayLike<number>;
}

/** Where a frame's splats are drawn. */
export interface SplatTarget {
  /** The caller's colour texture (of the renderer's `format`), its picture kept and the splats blended over it. */
  color: GPUTextureView;
  /** The caller's depth texture (of `depthFormat`, single-sampled like `color`), read only; needs `depthFormat`. */
  depth?: GPUTextureView;
  /** The textures' size in pixels. */
  width: number;
  height: number;
}

/** The scene a renderer holds. */
export interface SplatSceneInfo {
  /** Its splats. */
  splats: number;
  /** The spherical-harmonics degree its colours have (0–3). */
  shDegree: number;
  /** The box around its splats' centres, in its own coordinates. */
  bounds: { min: [number, number, number]; max: [number, number, number] };
  /** What was odd about the file and did not stop the load. */
  warnings: string[];
}

/** What `load` opens: an address (relative to the page), or a file's bytes. */
export type SplatBytesOrUrl = string | URL | ArrayBuffer | Uint8Array;

export interface SplatLoadOptions {
  /** The file's name, which tells its format where its bytes do not (a `.splat` file's); default the address's last part, or "scene". */
  name?: string;
  /** Stops the load: it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** How far the load has come, 0 to 1, a few times a second. */
  onProgress?: (fraction: number) => void;
}

/** Draws one scene's splats into another renderer's frames. */
export interface SplatRenderer {
  /**
   * Reads a scene (any format the viewer reads from one file: PLY, SPZ,
   * SOG bundle, .splat, .ksplat, .glb) and draws it from the next frame on,
   * in place of the one before. Rejects with an error that says what is
   * wrong with a file it cannot read, keeping the scene it had; a load
   * that a later one replaced rejects with an AbortError.
   */
  load(source: SplatBytesOrUrl, options?: SplatLoadOptions): Promise<SplatSceneInfo>;
  /** The scene drawn, or null before one is loaded. */
  readonly scene: SplatSceneInfo | null;
  /**
   * Sorts the scene for `camera` and draws it into `target`, over what the
   * target holds, in commands of its own submitted to the device's queue:
   * call it after submitting what the splats go over. Draws nothing
   * without a scene. Throws for a camera it cannot draw (not a
   * perspective projection) or a depth texture it was not made for.
   */
  render(target: SplatTarget, camera: SplatCamera): void;
  /** Frees its GPU buffers and textures; it draws nothing after. */
  destroy(): void;
}

/**
 * A renderer of splats into the caller's textures on `device`: the
 * pipelines are compiled once per device and description, so a second
 * renderer on the same device compiles none.
 */
export async function createSplatRenderer(device: GPUDevice, options: SplatRendererOptions): Promise<SplatRenderer> {
  const depthTest = options.depthFormat ? { format: options.depthFormat, compare: options.depthCompare ?? 'less' } : undefined;
  const engine = await FrameEngine.create(device, options.format, () => {
    throw new Error('the engine entry sorts on the GPU only');
  }, { depthTest, over: true });
  return new EngineSplats(engine, depthTest !== undefined);
}

/** Every frame: the GPU sort, its key width chosen per frame, quads. */
const SETTINGS: FrameSettings = { sortMode: 'gpu', keyBits: 'auto', freezeOrder: false, measureOrder: false, renderer: 'quads', order: 'centre-depth', view: 'picture' };
/** How the projection's last column reads for a perspective camera (w = −z_view). */
const PERSPECTIVE_W = -1;

class EngineSplats implements SplatRenderer {
  private shown: { source: FrameScene; cloud: SplatCloud; info: SplatSceneInfo } | null = null;
  private loads = 0;
  private destroyed = false;
  // Reused every frame.
  private readonly camera: FrameCamera = { view: mat4.create(), projection: mat4.create(), eye: vec3.create(), fovY: 1, width: 1, height: 1, shDegree: 3, splatScale: 1 };
  private readonly inverse = mat4.create();
  private readonly target: SplatDrawTarget = { view: undefined as unknown as GPUTextureView, background: [0, 0, 0], over: true };

  constructor(
    private readonly engine: FrameEngine,
    private readonly depthTested: boolean,
  ) {}

  get scene(): SplatSceneInfo | null {
    return this.shown?.info ?? null;
  }

  async load(source: SplatBytesOrUrl, options: SplatLoadOptions = {}): Promise<SplatSceneInfo> {
    if (this.destroyed) throw new Error('this splat renderer was destroyed');
    const load = ++this.loads;
    const sceneSource = typeof source === 'string' || source instanceof URL
      ? urlSource(absoluteUrl(source))
      : bufferSource(source instanceof Uint8Array ? source : new Uint8Array(source), options.name ?? 'scene');
    const name = options.name ?? lastPathSegment(sceneSource.name);
    const { onProgress } = options;
    let reached = 0;
    const loaded = await loadScene(sceneSource, {
      signal: options.signal,
      limits: deviceLoadLimits(this.engine.device),
      // Fetching or reading is the first half, decoding the second; never backwards.
      onProgress: onProgress && ((stage, fraction) => onProgress((reached = Math.max(reached, (stage === 'parse' ? 0.5 : 0) + fraction / 2)))),
    });
    if (load !== this.loads || this.destroyed) throw new DOMException(`a later load replaced the load of ${name}`, 'AbortError');
    const { cloud } = loaded;
    const frameScene = this.engine.showCloud(cloud, name);
    this.shown?.source.destroy();
    const info: SplatSceneInfo = {
      splats: cloud.count,
      shDegree: cloud.shDegree,
      bounds: { min: [...cloud.bounds.min], max: [...cloud.bounds.max] },
      warnings: loaded.warnings,
    };
    this.shown = { source: frameScene, cloud, info };
    return info;
  }

  render(target: SplatTarget, camera: SplatCamera): void {
    if (this.destroyed) throw new Error('this splat renderer was destroyed');
    if (target.depth && !this.depthTested) throw new Error('a depth texture was given to a splat renderer made without depthFormat');
    const shown = this.shown;
    if (!shown) return;
    const c = this.camera;
    readMatrix(c.view as Float32Array, camera.view, 'view');
    readMatrix(c.projection as Float32Array, camera.projection, 'projection');
    const p = c.projection;
    if (Math.abs(p[11]! - PERSPECTIVE_W) > 1e-6 || p[15] !== 0) throw new Error(`the projection is not a perspective one (its last column is ${p[3]}, ${p[7]}, ${p[11]}, ${p[15]}; splats are drawn with a perspective projection, whose w is −z)`);
    if (!mat4.invert(this.inverse, c.view)) throw new Error('the view matrix has no inverse');
    mat4.getTranslation(c.eye, this.inverse);
    c.fovY = 2 * Math.atan(1 / p[5]!);
    c.width = target.width;
    c.height = target.height;
    c.screenFilter = screenFilterFor('auto', shown.cloud.antiAliasing);
    const t = this.target;
    t.view = target.color;
    t.depth = target.depth;
    this.engine.drawFrame(t, c, SETTINGS);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.shown?.source.destroy();
    this.shown = null;
    this.engine.destroy();
  }
}

function readMatrix(into: Float32Array, from: ArrayLike<number>, what: string): void {
  if (from.length !== 16) throw new Error(`the ${what} matrix has ${from.length} numbers, not 16`);
  for (let i = 0; i < 16; i++) {
    const x = from[i]!;
    if (!Number.isFinite(x)) throw new Error(`the ${what} matrix has ${x} at ${i}`);
    into[i] = x;
  }
}

/** `address` made absolute against the page's (in a page), or as given (a worker or Node must give an absolute one). */
function absoluteUrl(address: string | URL): string {
  try {
    return new URL(address, globalThis.location?.href).href;
  } catch {
    throw new Error(`'${String(address)}' is not an address that can be fetched from here (outside a page, give an absolute one)`);
  }
}
