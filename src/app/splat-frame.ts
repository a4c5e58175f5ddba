/**
 * One frame of the viewer, DOM-free (the browser, the tests and the Node
 * benchmark all use it): per-frame uniforms → depth keys → GPU radix sort →
 * splats drawn back to front in the sorted order. With an order from
 * elsewhere (the CPU sort) or a frozen order, the key pass and the sort are
 * skipped and the renderer reads the same index buffer.
 */
import { GpuRadixSort, type SortEncodeOptions } from '../sort/gpu-radix-sort';
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
  private timerBusy = false;
  /** Reused every frame (nothing allocated per frame). */
  private readonly sortOptions: SortEncodeOptions = { count: 0, keyBits: 32 };
  private readonly keyTarget = { scene: null as unknown as GpuSplats, keys: null as unknown as GPUBuffer, values: null as unknown as GPUBuffer, count: 0 };
  private readonly drawScene = { scene: null as GpuSplats | null, order: null as unknown as GPUBuffer, count: 0 };
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

  /**
   * The buffer the renderer reads the draw order from for the given key
   * width: the sort's output (its parity depends on the number of passes).
   * An order sorted elsewhere is uploaded here.
   */
  orderBuffer(keyBits: number): GPUBuffer {
    return this.sorter.resultBuffers(keyBits).values;
  }

  /** Records one frame into `encoder`. */
  encode(
    encoder: GPUCommandEncoder,
    parameters: FrameParameters,
    target: { view: GPUTextureView; background: readonly [number, number, number] },
    order: OrderSource,
  ): void {
    this.uniforms.write(parameters);
    const scene = this.scene;
    const timing = !this.timerBusy && this.timer.enabled;
    let orderBuffer = this.orderBuffer(parameters.keyBits);
    if (scene && order === 'gpu-sort') {
      const keyTarget = this.keyTarget;
      keyTarget.scene = scene;
      keyTarget.keys = this.sorter.keys;
      keyTarget.values = this.sorter.values;
      keyTarget.count = scene.count;
      this.keys.encode(encoder, keyTarget, timing ? this.timer.timestampWrites('keys') : undefined);
      const sort = this.sortOptions;
      sort.count = scene.count;
      sort.keyBits = parameters.keyBits;
      if (timing) sort.timestampWrites = this.timer.timestampWrites('sort')!;
      else delete sort.timestampWrites;
      orderBuffer = this.sorter.encode(encoder, sort).values;
    }
    // Without a scene the pass only clears.
    const draw = this.drawScene;
    draw.scene = scene;
    draw.order = orderBuffer;
    draw.count = scene?.count ?? 0;
    this.renderer.encode(encoder, target, draw, timing ? this.timer.timestampWrites('render') : undefined);
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
