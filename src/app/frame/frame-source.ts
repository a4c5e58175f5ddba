/**
 * What a frame draws, whatever it is: one interface for a scene (its
 * splats uploaded whole, SceneSource) and for a Streamed SOG world (its
 * resident chunks in a page pool: src/app/world/world-session.ts). The
 * frame engine asks a source for its splats and how many a frame draws,
 * and calls its update once a frame, before drawing; it never asks which
 * kind of source it has. DOM-free.
 */
import { GpuSplats } from '../../scene/gpu-splats';
import type { SplatCloud } from '../../scene/splat-cloud';
import type { FrameCamera } from '../../render/frame-uniforms';

export interface FrameSource {
  /** The splats on the GPU the frame draws (null: none yet, the background alone). */
  readonly scene: GpuSplats | null;
  /** The most splats a frame draws: what the projector and the sort are sized for. */
  readonly maxDrawn: number;
  /**
   * The splats' positions on the CPU, for the CPU sorts and a frozen order;
   * null where they are not there (a world), whose frames then sort on the
   * GPU, every frame: what a world draws changes as chunks come and go.
   */
  readonly positions: Float32Array | null;
  /** Moves the source along for this frame's camera (a world chooses what to draw); the frame is drawn next. */
  update(camera: Readonly<FrameCamera>): void;
}

/** A scene uploaded whole: what it draws never changes. Owns its GPU splats. */
export class SceneSource implements FrameSource {
  readonly positions: Float32Array;

  /** `cloud` on the GPU; throws if the device cannot hold it. */
  static fromCloud(device: GPUDevice, cloud: SplatCloud, label: string): SceneSource {
    return new SceneSource(new GpuSplats(device, cloud, label), cloud.positions);
  }

  constructor(
    readonly scene: GpuSplats,
    positions: Float32Array,
  ) {
    this.positions = positions;
  }

  get maxDrawn(): number {
    return this.scene.count;
  }

  update(): void {}

  destroy(): void {
    this.scene.destroy();
  }
}
