/**
 * One frame of the viewer, DOM-free (the browser, the tests and the Node
 * benchmark all use it): per-frame uniforms → depth keys → GPU radix sort →
 * splats drawn back to front in the sorted order. With an order from
 * elsewhere (the CPU sort) or a frozen order, the key pass and the sort are
 * skipped and the renderer reads the same index buffer.
 */
import { GpuRadixSort } from '../sort/gpu-radix-sort';
import { GpuPassTimer } from '../gpu/pass-timer';
import { DepthKeyPass } from '../render/depth-key-pass';
import { FrameUniforms, type FrameParameters } from '../render/frame-uniforms';
import { SplatRenderer } from '../render/splat-renderer';
import type { GpuSplats } from '../scene/gpu-splats';

export type FrameTimings = Record<'keys' | 'sort' | 'render', number | null>;

/** How this frame's draw order is obtained. */
export type OrderSource = 'gpu-sort' | 'uploaded' | 'frozen';

export class SplatFrame {
  readonly uniforms: FrameUniforms;
  readonly timer: GpuPassTimer<'keys' | 'sort' | 'render'>;
  private scene: GpuSplats | null = null;
  private keyBits = 32;
  private timerBusy = false;
  /** Passes that ran in the last timed frame. */
  private timed = new Set<'keys' | 'sort' | 'render'>();

  static async create(device: GPUDevice, format: GPUTextureFormat): Promise<SplatFrame> {
    const uniforms = new FrameUniforms(device, 'SplatFrame.uniforms');
    const [keys, sorter, renderer] = await Promise.all([
      DepthKeyPass.create(device, uniforms.buffer),
      GpuRadixSort.create(device, { capacity: 1024, label: 'SplatFrame.sort' }),
      SplatRenderer.create(device, uniforms.buffer, format),
    ]);
    return new SplatFrame(device, uniforms, keys, sorter, renderer);
  }

  private constructor(
    device: GPUDevice,
    uniforms: FrameUniforms,
    private readonly keys: DepthKeyPass,
    readonly sorter: GpuRadixSort,
    private readonly renderer: SplatRenderer,
  ) {
    this.uniforms = uniforms;
    this.timer = new GpuPassTimer(device, ['keys', 'sort', 'render'] as const, 'SplatFrame.timer');
  }

  /** Shows `scene` from the next frame on (the caller owns and destroys it). */
  setScene(scene: GpuSplats): void {
    this.sorter.ensureCapacity(scene.count);
    this.scene = scene;
  }

  get sceneCount(): number {
    return this.scene?.count ?? 0;
  }

  /**
   * The buffer the renderer reads the draw order from for the given key
   * width: the sort's output (its parity depends on the number of passes).
   * An order sorted elsewhere is uploaded here.
   */
  orderBuffer(keyBits = this.keyBits): GPUBuffer {
    return this.sorter.resultBuffers(keyBits).values;
  }

  /** Records one frame into `encoder`. */
  encode(
    encoder: GPUCommandEncoder,
    parameters: FrameParameters,
    target: { view: GPUTextureView; background: readonly [number, number, number] },
    order: OrderSource,
  ): void {
    this.keyBits = parameters.keyBits;
    this.uniforms.write(parameters);
    const scene = this.scene;
    const timing = !this.timerBusy && this.timer.enabled;
    let orderBuffer = this.orderBuffer(parameters.keyBits);
    if (scene && order === 'gpu-sort') {
      this.keys.encode(
        encoder,
        { splats: scene.splats, keys: this.sorter.keys, values: this.sorter.values, count: scene.count },
        timing ? this.timer.timestampWrites('keys') : undefined,
      );
      orderBuffer = this.sorter.encode(encoder, {
        count: scene.count,
        keyBits: parameters.keyBits,
        ...(timing ? { timestampWrites: this.timer.timestampWrites('sort')! } : {}),
      }).values;
    }
    this.renderer.encode(
      encoder,
      target,
      { splats: scene?.splats ?? this.sorter.keys, sh: scene?.sh ?? this.sorter.keys, order: orderBuffer, count: scene?.count ?? 0 },
      timing ? renderTimestamps(this.timer) : undefined,
    );
    if (timing) {
      this.timer.resolve(encoder);
      this.timed.clear();
      this.timed.add('render');
      if (scene && order === 'gpu-sort') {
        this.timed.add('keys');
        this.timed.add('sort');
      }
    }
  }

  /**
   * GPU times of the last timed frame's passes (null: not measured: no
   * timestamp-query, or the pass did not run). Call after submit; frames
   * recorded while a read is pending are not timed.
   */
  async readTimings(): Promise<FrameTimings> {
    this.timerBusy = true;
    try {
      const times = await this.timer.read();
      for (const name of this.timer.names) if (!this.timed.has(name)) times[name] = null;
      return times;
    } finally {
      this.timerBusy = false;
    }
  }

  destroy(): void {
    this.uniforms.destroy();
    this.sorter.destroy();
    this.timer.destroy();
  }
}

function renderTimestamps(timer: GpuPassTimer<'keys' | 'sort' | 'render'>): GPURenderPassTimestampWrites | undefined {
  const w = timer.timestampWrites('render');
  return w ? { querySet: w.querySet, beginningOfPassWriteIndex: w.beginningOfPassWriteIndex!, endOfPassWriteIndex: w.endOfPassWriteIndex! } : undefined;
}
