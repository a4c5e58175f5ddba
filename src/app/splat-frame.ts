/**
 * One frame of the viewer, DOM-free (the browser, the tests and the Node
 * benchmark all use it): per-frame uniforms → projector (cull, project,
 * key the visible splats) → draw order → splats drawn back to front.
 *
 * The order is a DrawOrder: the GPU sort of this frame's keys (drawn with
 * drawIndirect from the projector's visible count), an uploaded CPU order,
 * or 'frozen': the order drawn last, re-drawn without sorting (the records
 * are still projected for this frame's camera).
 */
import { GpuPassTimer, setTimestampWrites } from '../gpu/pass-timer';
import { FrameUniforms, type FrameParameters } from '../render/frame-uniforms';
import { OrderErrorPass, type OrderErrorMeasure } from '../render/order-error-pass';
import { SplatProjector, type SplatProjectorOptions } from '../render/splat-projector';
import { SplatRenderer, type SplatDraw, type SplatRendererOptions } from '../render/splat-renderer';
import type { GpuSplats } from '../scene/gpu-splats';
import type { DrawOrder, OrderFrame, OrderedSplats } from './draw-order';

export type FramePass = 'project' | 'sort' | 'render';
export type FrameTimings = Record<FramePass, number | null>;
const FRAME_PASSES: readonly FramePass[] = ['project', 'sort', 'render'];

/** The order a frame draws: a DrawOrder that makes it this frame, or the last one drawn. */
export type FrameOrder = DrawOrder | 'frozen';

export interface SplatFrameOptions extends SplatProjectorOptions, SplatRendererOptions {}

export class SplatFrame {
  readonly uniforms: FrameUniforms;
  readonly timer: GpuPassTimer<FramePass>;
  private scene: GpuSplats | null = null;
  private timerBusy = false;
  /** The order drawn last (what 'frozen' re-draws), null after a scene change; `kept` is its storage. */
  private lastDrawn: OrderedSplats | null = null;
  private readonly kept: OrderedSplats = { order: null as unknown as GPUBuffer, count: 0, drawArgs: null, maxCount: 0 };
  private readonly draw: SplatDraw = { records: null as unknown as GPUBuffer, order: null as unknown as GPUBuffer, count: 0 };
  private readonly orderFrame: OrderFrame = {
    encoder: null as unknown as GPUCommandEncoder,
    keyBits: 32,
    visibleCount: null as unknown as OrderFrame['visibleCount'],
    drawArgs: null as unknown as OrderFrame['drawArgs'],
    capacity: 0,
  };
  /** Passes that ran in the last timed frame. */
  private readonly timed = new Set<FramePass>();

  static async create(device: GPUDevice, format: GPUTextureFormat, options: SplatFrameOptions = {}): Promise<SplatFrame> {
    const uniforms = new FrameUniforms(device, 'SplatFrame.uniforms');
    const [projector, renderer, measure] = await Promise.all([
      SplatProjector.create(device, uniforms.buffer, options),
      SplatRenderer.create(device, uniforms.buffer, format, options),
      OrderErrorPass.create(device),
    ]);
    return new SplatFrame(device, uniforms, projector, renderer, measure);
  }

  private constructor(
    device: GPUDevice,
    uniforms: FrameUniforms,
    readonly projector: SplatProjector,
    private readonly renderer: SplatRenderer,
    private readonly measure: OrderErrorPass,
  ) {
    this.uniforms = uniforms;
    this.timer = new GpuPassTimer(device, FRAME_PASSES, 'SplatFrame.timer');
  }

  /** Shows `scene` from the next frame on (the caller owns and destroys it). */
  setScene(scene: GpuSplats): void {
    if (scene === this.scene) return;
    this.scene = scene;
    this.projector.setScene(scene);
    this.lastDrawn = null;
  }

  /** The order drawn by the last frame (borrowed; null before one, or after a scene change). */
  get drawn(): OrderedSplats | null {
    return this.lastDrawn;
  }

  /** True when 'frozen' has an order of this scene to re-draw. */
  get canFreeze(): boolean {
    return this.lastDrawn !== null;
  }

  /**
   * Records one frame into `encoder`. With `measure`, the ordering error of
   * the drawn order is measured too: returns true when it was (read it with
   * readOrderError after the submit); false when nothing was drawn or an
   * earlier measure is still being read.
   */
  encode(
    encoder: GPUCommandEncoder,
    parameters: FrameParameters,
    target: { view: GPUTextureView; background: readonly [number, number, number] },
    order: FrameOrder,
    options: { measure?: boolean } = {},
  ): boolean {
    this.uniforms.write(parameters);
    const scene = this.scene;
    const timing = !this.timerBusy && this.timer.enabled;
    if (timing) this.timed.clear();
    let drawn: OrderedSplats | null = null;
    let measured = false;
    if (scene && scene.count > 0) {
      const projector = this.projector;
      const keyTarget = order === 'frozen' ? null : order.keyTarget(scene.count);
      projector.encode(encoder, keyTarget, timing ? this.timer.timestampWrites('project') : undefined);
      if (timing) this.timed.add('project');
      if (order !== 'frozen') {
        const f = this.orderFrame;
        f.encoder = encoder;
        f.keyBits = parameters.keyBits;
        f.visibleCount = projector.visibleCount;
        f.drawArgs = projector.drawArgs;
        f.capacity = projector.capacity;
        const sortWrites = timing && keyTarget ? this.timer.timestampWrites('sort') : undefined;
        setTimestampWrites(f, sortWrites);
        if (sortWrites) this.timed.add('sort');
        drawn = order.encode(f);
        this.lastDrawn = drawn && Object.assign(this.kept, drawn);
      } else {
        drawn = this.lastDrawn;
      }
      if (drawn && options.measure) {
        measured = this.measure.encode(encoder, { ...drawn, depths: projector.depths!, state: projector.state! });
      }
    }
    let draw: SplatDraw | null = null;
    if (drawn) {
      draw = this.draw;
      draw.records = this.projector.records!;
      draw.order = drawn.order;
      draw.count = drawn.drawArgs ?? drawn.count;
    }
    this.renderer.encode(encoder, target, draw, timing ? this.timer.timestampWrites('render') : undefined);
    if (timing) {
      this.timed.add('render');
      this.timer.resolve(encoder);
    }
    return measured;
  }

  /** The ordering error of the last measured frame (after its submit). */
  readOrderError(): Promise<OrderErrorMeasure> {
    return this.measure.read();
  }

  /** A measure was recorded and is not yet read. */
  get measuring(): boolean {
    return this.measure.pending;
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
    this.projector.destroy();
    this.measure.destroy();
    this.timer.destroy();
  }
}
