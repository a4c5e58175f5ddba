/**
 * A SplatCloud on the GPU, in the layout the depth-key pass and the splat
 * renderer read. Built once per scene; the 3D covariance is computed here,
 * on the CPU, so no frame recomputes it.
 *
 * splats: 16 floats per splat (64 bytes, one cache-friendly record):
 *   [0..2]  position x y z      [3]  opacity
 *   [4..6]  covariance xx xy xz [7]  unused
 *   [8..10] covariance yy yz zz [11] unused
 *   [12..14] SH degree-0 coefficients (raw f_dc) [15] unused
 * sh: shCoefficients(shDegree) * 3 floats per splat, coefficient-major with
 *   RGB inside (the SplatCloud layout); one float if the scene has none.
 */
import { shCoefficients, type SplatCloud } from './splat-cloud';

export const SPLAT_FLOATS = 16;

export class GpuSplats {
  readonly count: number;
  readonly shDegree: SplatCloud['shDegree'];
  readonly splats: GPUBuffer;
  readonly sh: GPUBuffer;

  constructor(device: GPUDevice, cloud: SplatCloud, label = 'GpuSplats') {
    this.count = cloud.count;
    this.shDegree = cloud.shDegree;
    const bytes = Math.max(16, cloud.count * SPLAT_FLOATS * 4);
    const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    if (bytes > limit || cloud.sh.byteLength > limit) {
      throw new RangeError(
        `${cloud.count.toLocaleString('en-US')} splats need ${(Math.max(bytes, cloud.sh.byteLength) / 2 ** 20).toFixed(0)} MiB in one buffer; this GPU allows ${(limit / 2 ** 20).toFixed(0)} MiB`,
      );
    }
    this.splats = device.createBuffer({ label: `${label}.splats`, size: bytes, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.splats, 0, packSplats(cloud));
    const shData = cloud.sh.length > 0 ? cloud.sh : new Float32Array(4);
    this.sh = device.createBuffer({ label: `${label}.sh`, size: Math.max(16, Math.ceil(shData.byteLength / 16) * 16), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(this.sh, 0, shData as Float32Array<ArrayBuffer>);
  }

  /** Floats of higher-band SH per splat (0, 9, 24 or 45). */
  get shFloatsPerSplat(): number {
    return shCoefficients(this.shDegree) * 3;
  }

  destroy(): void {
    this.splats.destroy();
    this.sh.destroy();
  }
}

/** Packs positions, opacity, covariance Σ = R S Sᵀ Rᵀ and DC colour (see the file header). */
export function packSplats(cloud: SplatCloud): Float32Array<ArrayBuffer> {
  const out = new Float32Array(cloud.count * SPLAT_FLOATS);
  const { positions: p, scales: s, rotations: q, opacities: o, dc } = cloud;
  for (let i = 0; i < cloud.count; i++) {
    const b = i * SPLAT_FLOATS;
    out[b] = p[3 * i]!;
    out[b + 1] = p[3 * i + 1]!;
    out[b + 2] = p[3 * i + 2]!;
    out[b + 3] = o[i]!;
    const w = q[4 * i]!, x = q[4 * i + 1]!, y = q[4 * i + 2]!, z = q[4 * i + 3]!;
    // Rotation matrix of the unit quaternion (w, x, y, z), rows r0..r2.
    const r00 = 1 - 2 * (y * y + z * z), r01 = 2 * (x * y - w * z), r02 = 2 * (x * z + w * y);
    const r10 = 2 * (x * y + w * z), r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - w * x);
    const r20 = 2 * (x * z - w * y), r21 = 2 * (y * z + w * x), r22 = 1 - 2 * (x * x + y * y);
    const sx = s[3 * i]!, sy = s[3 * i + 1]!, sz = s[3 * i + 2]!;
    // M = R S; Σ = M Mᵀ.
    const m00 = r00 * sx, m01 = r01 * sy, m02 = r02 * sz;
    const m10 = r10 * sx, m11 = r11 * sy, m12 = r12 * sz;
    const m20 = r20 * sx, m21 = r21 * sy, m22 = r22 * sz;
    out[b + 4] = m00 * m00 + m01 * m01 + m02 * m02;
    out[b + 5] = m00 * m10 + m01 * m11 + m02 * m12;
    out[b + 6] = m00 * m20 + m01 * m21 + m02 * m22;
    out[b + 8] = m10 * m10 + m11 * m11 + m12 * m12;
    out[b + 9] = m10 * m20 + m11 * m21 + m12 * m22;
    out[b + 10] = m20 * m20 + m21 * m21 + m22 * m22;
    out[b + 12] = dc[3 * i]!;
    out[b + 13] = dc[3 * i + 1]!;
    out[b + 14] = dc[3 * i + 2]!;
  }
  return out;
}
