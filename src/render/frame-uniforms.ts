/**
 * The per-frame uniform block the frame's shaders share (struct Frame,
 * laid out in src/render/frame-layouts.ts). One writeBuffer per frame from
 * a preallocated array: nothing is allocated per frame.
 */
import { mat4, vec3 } from 'gl-matrix';
import { FRAME } from './frame-layouts';
import { CLASSIC_FILTER, type ScreenFilter } from '../scene/anti-aliasing';

/** Word indices of the fields written here, from the one description. */
const W = Object.fromEntries(FRAME.fields.map((f) => [f.name, f.offset / 4])) as Record<string, number>;

/** A frame's camera and look: what its caller fills (the frame engine adds the rest: FrameParameters). */
export interface FrameCamera {
  view: mat4;
  projection: mat4;
  eye: vec3;
  /** Vertical field of view, radians. */
  fovY: number;
  width: number;
  height: number;
  /** SH bands to evaluate (clamped to the scene's by the caller). */
  shDegree: number;
  splatScale: number;
  /** The screen-space low-pass filter (src/scene/anti-aliasing.ts); the reference's +0.3 px² when absent. */
  screenFilter?: ScreenFilter;
}

/** A camera and look to be written (the identity view and projection). */
export function createFrameCamera(): FrameCamera {
  return { view: mat4.create(), projection: mat4.create(), eye: vec3.create(), fovY: 1, width: 1, height: 1, shDegree: 0, splatScale: 1 };
}

/** Copies `from` into `to`, allocating nothing. */
export function copyFrameCamera(to: FrameCamera, from: Readonly<FrameCamera>): void {
  mat4.copy(to.view, from.view);
  mat4.copy(to.projection, from.projection);
  vec3.copy(to.eye, from.eye);
  to.fovY = from.fovY;
  to.width = from.width;
  to.height = from.height;
  to.shDegree = from.shDegree;
  to.splatScale = from.splatScale;
  to.screenFilter = from.screenFilter;
}

/** Everything the frame's uniforms hold: the camera and look, and what the frame decides (the splats and the key width). */
export interface FrameParameters extends FrameCamera {
  splatCount: number;
  /** Bits of the depth key the sort uses (1..32). */
  keyBits: number;
}

export class FrameUniforms {
  readonly buffer: GPUBuffer;
  private readonly data = new ArrayBuffer(FRAME.size);
  private readonly f32 = new Float32Array(this.data);
  private readonly u32 = new Uint32Array(this.data);

  constructor(private readonly device: GPUDevice, label = 'FrameUniforms') {
    this.buffer = device.createBuffer({ label, size: FRAME.size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  }

  write(p: FrameParameters): void {
    const { f32, u32 } = this;
    f32.set(p.view as Float32Array, W.view!);
    f32.set(p.projection as Float32Array, W.projection!);
    f32[W.eye!] = p.eye[0];
    f32[W.eye! + 1] = p.eye[1];
    f32[W.eye! + 2] = p.eye[2];
    u32[W.sh_degree!] = p.shDegree;
    f32[W.viewport!] = p.width;
    f32[W.viewport! + 1] = p.height;
    const tanY = Math.tan(p.fovY / 2);
    const tanX = tanY * (p.width / p.height);
    f32[W.focal!] = p.width / (2 * tanX);
    f32[W.focal! + 1] = p.height / (2 * tanY);
    f32[W.tan_half_fov!] = tanX;
    f32[W.tan_half_fov! + 1] = tanY;
    f32[W.splat_scale!] = p.splatScale;
    u32[W.count!] = p.splatCount;
    u32[W.key_shift!] = 32 - p.keyBits;
    const filter = p.screenFilter ?? CLASSIC_FILTER;
    f32[W.filter_variance!] = filter.variance;
    u32[W.filter_compensate!] = filter.compensate ? 1 : 0;
    this.device.queue.writeBuffer(this.buffer, 0, this.data);
  }

  destroy(): void {
    this.buffer.destroy();
  }
}
