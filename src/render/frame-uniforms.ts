/**
 * The per-frame uniform block shared by the depth-key pass and the splat
 * renderer (struct Frame in shaders/splat_common.wgsl). One writeBuffer per
 * frame from a preallocated array: nothing is allocated per frame.
 */
import type { mat4, vec3 } from 'gl-matrix';

export const FRAME_UNIFORM_BYTES = 192;

export interface FrameParameters {
  view: mat4;
  projection: mat4;
  eye: vec3;
  /** Vertical field of view, radians. */
  fovY: number;
  width: number;
  height: number;
  splatCount: number;
  /** SH bands to evaluate (clamped to the scene's by the caller). */
  shDegree: number;
  splatScale: number;
  /** Bits of the depth key the sort uses (1..32). */
  keyBits: number;
}

export class FrameUniforms {
  readonly buffer: GPUBuffer;
  private readonly data = new ArrayBuffer(FRAME_UNIFORM_BYTES);
  private readonly f32 = new Float32Array(this.data);
  private readonly u32 = new Uint32Array(this.data);

  constructor(private readonly device: GPUDevice, label = 'FrameUniforms') {
    this.buffer = device.createBuffer({ label, size: FRAME_UNIFORM_BYTES, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
  }

  write(p: FrameParameters): void {
    const { f32, u32 } = this;
    f32.set(p.view as Float32Array, 0);
    f32.set(p.projection as Float32Array, 16);
    f32[32] = p.eye[0];
    f32[33] = p.eye[1];
    f32[34] = p.eye[2];
    u32[35] = p.shDegree;
    f32[36] = p.width;
    f32[37] = p.height;
    const tanY = Math.tan(p.fovY / 2);
    const tanX = tanY * (p.width / p.height);
    f32[38] = p.width / (2 * tanX);
    f32[39] = p.height / (2 * tanY);
    f32[40] = tanX;
    f32[41] = tanY;
    f32[42] = p.splatScale;
    u32[43] = p.splatCount;
    u32[44] = 32 - p.keyBits;
    this.device.queue.writeBuffer(this.buffer, 0, this.data);
  }

  destroy(): void {
    this.buffer.destroy();
  }
}
