/**
 * The GPU tests' fixture: a real WebGPU device (Dawn over SwiftShader in
 * CI) for one test file, the scenes on it, the frames and orders that draw
 * them, one frame drawn and read back, and everything torn down after the
 * file.
 *
 * `useGpu(label)` at the top of a file registers the hooks. What costs
 * pipelines (a SplatFrame, the GPU sort: ~0.7 s a pipeline group on
 * SwiftShader, several seconds each) is made once for the file and shared
 * by its tests; real scenes are parsed once a process and must not be
 * changed. Whatever the fixture hands out, or is given with own(), is
 * destroyed after the file, before the device.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { createNodeGpuContext } from '../../src/gpu/node-gpu';
import type { GpuContext } from '../../src/gpu/device';
import { readTextureRgba } from '../../src/gpu/readback';
import { SplatFrame, type FrameEncodeOptions, type SplatFrameOptions } from '../../src/app/frame/splat-frame';
import type { DrawOrder } from '../../src/app/frame/order/draw-order';
import { GpuSortOrder } from '../../src/app/frame/order/gpu-sort-order';
import { UploadedOrder } from '../../src/app/frame/order/uploaded-order';
import { GpuSplats, type GpuSplatsOptions } from '../../src/scene/gpu-splats';
import { allocateSplatCloud, computeBounds, SH_C0, type SplatCloud } from '../../src/scene/splat-cloud';
import type { FrameParameters } from '../../src/render/frame-uniforms';
import { DEFAULT_ACCUMULATION } from '../../src/render/accumulation-target';
import { VIEW_BACKGROUND } from './test-view';
import { outputUsage } from '../../src/render/output-target';

interface Destroyable {
  destroy(): void;
}

/** What a test draws into: rgba8unorm, so the picture reads back as 8-bit RGBA. */
export const TEST_TARGET_FORMAT: GPUTextureFormat = 'rgba8unorm';

export class GpuFixture {
  private context: GpuContext | null = null;
  /** Destroyed after the file, newest first. */
  private owned: Destroyable[] = [];
  private readonly frames = new Map<string, Promise<SplatFrame>>();
  private sortOrder: Promise<GpuSortOrder> | null = null;

  constructor(readonly label: string) {}

  get device(): GPUDevice {
    if (!this.context) throw new Error(`${this.label}: the GPU fixture was used outside its file's tests (before beforeAll or after afterAll)`);
    return this.context.device;
  }

  get gpu(): GpuContext {
    if (!this.context) throw new Error(`${this.label}: the GPU fixture was used outside its file's tests`);
    return this.context;
  }

  async setUp(): Promise<void> {
    this.context = await createNodeGpuContext(this.label);
  }

  tearDown(): void {
    const owned = this.owned.reverse();
    this.owned = [];
    this.frames.clear();
    this.sortOrder = null;
    for (const thing of owned) thing.destroy();
    this.context?.device.destroy();
    this.context = null;
  }

  /** Destroys `thing` after the file (with the device). */
  own<T extends Destroyable>(thing: T): T {
    this.owned.push(thing);
    return thing;
  }

  /** Destroys `thing` now instead (a scene a test is done with). */
  release(thing: Destroyable | null | undefined): void {
    if (!thing) return;
    this.owned = this.owned.filter((t) => t !== thing);
    thing.destroy();
  }

  /** The file's frame with these options (drawing into rgba8unorm), made on first use and shared. */
  frame(options: SplatFrameOptions = {}): Promise<SplatFrame> {
    const filled: SplatFrameOptions = { accumulation: DEFAULT_ACCUMULATION, ...options };
    const key = stableJson(filled);
    let made = this.frames.get(key);
    if (!made) {
      made = SplatFrame.create(this.device, TEST_TARGET_FORMAT, filled).then((frame) => this.own(frame));
      this.frames.set(key, made);
    }
    return made;
  }

  /** The file's GPU radix sort order, made on first use and shared. */
  gpuOrder(): Promise<GpuSortOrder> {
    return (this.sortOrder ??= GpuSortOrder.create(this.device).then((order) => this.own(order)));
  }

  /** A new order to upload CPU orders into. */
  uploadedOrder(): UploadedOrder {
    return this.own(new UploadedOrder(this.device));
  }

  /** `cloud` on the device (destroyed after the file, or by release()). */
  upload(cloud: SplatCloud, label: string, options?: GpuSplatsOptions): GpuSplats {
    return this.own(new GpuSplats(this.device, cloud, label, options));
  }

  /**
   * Records one frame of whatever scene `frame` shows into a new
   * rgba8unorm target of the parameters' size, over VIEW_BACKGROUND unless
   * told, and reads it back as tightly packed RGBA rows. A WebGPU
   * validation error fails the test (a picture left over from before must
   * not pass for this one). Measures and the difference view's counts are
   * read from `frame` afterwards (readOrderError, readDifference).
   */
  /**
   * One frame into a new target, read back. `writable`: the target is made
   * as the viewer makes its outputs (render/output-target.ts), so the last
   * pass writes it by compute; else it is a render target only, written by
   * a render pass.
   */
  async render(frame: SplatFrame, params: FrameParameters, order: DrawOrder, options: FrameEncodeOptions & { background?: readonly [number, number, number]; writable?: boolean } = {}): Promise<Uint8Array> {
    const { device } = this;
    const writable = options.writable === true;
    const target = device.createTexture({
      label: `${this.label}.target`,
      size: [params.width, params.height],
      format: TEST_TARGET_FORMAT,
      usage: (writable ? outputUsage(device, TEST_TARGET_FORMAT) : GPUTextureUsage.RENDER_ATTACHMENT) | GPUTextureUsage.COPY_SRC,
    });
    try {
      device.pushErrorScope('validation');
      const encoder = device.createCommandEncoder({ label: `${this.label}.frame` });
      frame.encode(encoder, params, { view: target.createView(), background: options.background ?? VIEW_BACKGROUND, writable }, order, options);
      device.queue.submit([encoder.finish()]);
      const error = await device.popErrorScope();
      expect(error?.message ?? null, 'WebGPU validation error').toBeNull();
      return await readTextureRgba(device, target);
    } finally {
      target.destroy();
    }
  }
}

/** The GPU fixture of this test file: a device from beforeAll, everything destroyed in afterAll. */
export function useGpu(label: string): GpuFixture {
  const fixture = new GpuFixture(label);
  beforeAll(() => fixture.setUp());
  afterAll(() => fixture.tearDown());
  return fixture;
}

/** Real scenes, decoded once a process (tests/support/real-scenes.ts). */
export { realScene } from './real-scenes';

/** One splat of a made scene. */
export interface MadeSplat {
  position: readonly [number, number, number];
  scale: readonly [number, number, number];
  /** A quaternion w, x, y, z; normalised here (default: none). */
  rotation?: readonly [number, number, number, number];
  opacity: number;
  /** The colour as drawn (0..1), or `dc`, the SH degree-0 coefficients themselves. */
  colour?: readonly [number, number, number];
  dc?: readonly [number, number, number];
}

/** A scene made splat by splat (SH degree 0), its bounds computed. */
export function madeScene(splats: readonly MadeSplat[]): SplatCloud {
  const cloud = allocateSplatCloud(splats.length, 0);
  splats.forEach((s, i) => {
    cloud.positions.set(s.position, 3 * i);
    cloud.scales.set(s.scale, 3 * i);
    const q = s.rotation ?? [1, 0, 0, 0];
    const n = Math.hypot(...q);
    cloud.rotations.set(q.map((v) => v / n), 4 * i);
    cloud.opacities[i] = s.opacity;
    cloud.dc.set(s.dc ?? (s.colour ?? [0.5, 0.5, 0.5]).map((c) => (c - 0.5) / SH_C0), 3 * i);
  });
  cloud.bounds = computeBounds(cloud.positions, cloud.count);
  return cloud;
}

/** JSON with every object's keys sorted, nested ones too (a key of options: a replacer list would drop nested keys). */
function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}
