/**
 * The projector: the frame's first GPU work (DOM-free; the browser, the
 * tests and the benchmark share it). Four dispatches in one compute pass:
 *
 *   project (shaders/splat_project.wgsl): per splat, cull or project once,
 *     writing a ProjectedSplat record (indexed by splat), the exact view
 *     depth, the tile's kept count and the frame's visible depth range;
 *   scan (shaders/visible_scan.wgsl, two dispatches): each tile's first
 *     slot, the visible count, the indirect draw's vertex count (six a splat);
 *   keys (shaders/visible_keys.wgsl): the sort's pairs for the kept splats
 *     only, in splat order: the depth key (exact f32 at 32 bits, the
 *     visible depth range on 2^bits steps below) and the splat index.
 *     The sort difference view asks for a second set, always exact (32-bit
 *     keys whatever the frame's width), for the reference order.
 *
 * For an order that does not come from this frame's keys (the CPU sort, a
 * frozen order), only `project` runs, and it marks culled splats' records.
 * For a world's pool, project and keys run only its drawn tiles (drawn-tiles.ts).
 *
 * Why keys come from this frame's depth range, not the last frame's: a
 * range carried over is wrong whenever the camera moves (depths past it
 * clamp to the end keys and lose their order, exactly where the view
 * changes) and absent on a scene's first frame; this frame's range costs
 * the keys dispatch, 12 bytes per splat on top of the projector's ~100
 * (0.365 ms projector with keys for 7.3M splats on an H100,
 * docs/benchmarks.md), and that dispatch is needed anyway to place kept
 * splats in splat order, which keeps equal keys in the same order from
 * frame to frame (an atomic counter would reshuffle them: flicker).
 *
 * Buffers (sized for the scene, replaced when a larger one is set):
 *   records   RECORD_BYTES per splat, indexed by splat;
 *   depths    one f32 per splat (CULLED_DEPTH for culled ones);
 *   state     VisibleState: depth range, visible count, capacity, the
 *             drawIndirect arguments, then one u32 per tile and one per
 *             block of SCAN_BLOCK tiles.
 */
import commonSource from '../../shaders/splat_common.wgsl?raw';
import recordsSource from '../../shaders/splat_records.wgsl?raw';
import dispatchSource from '../../shaders/dispatch.wgsl?raw';
import projectSource from '../../shaders/splat_project.wgsl?raw';
import scanSource from '../../shaders/visible_scan.wgsl?raw';
import tileScanSource from '../../shaders/tile_scan.wgsl?raw';
import sumSource from '../../shaders/workgroup_sum.wgsl?raw';
import keysSource from '../../shaders/visible_keys.wgsl?raw';
import tileListSource from '../../shaders/tile_list.wgsl?raw';
import { setTimestampWrites } from '../gpu/pass-timer';
import { createCheckedShaderModule } from '../gpu/shader';
import type { GpuSplats } from '../scene/gpu-splats';
import { PROJECT_TILE } from '../scene/drawn-tiles';
import { CLIP_MARGIN_PX, CLIP_SLACK_PX } from './splat-size-cap';
import { KEYS_SLOTS, PROJECT_SLOTS, PROJECTED_SPLAT, SCAN_SLOTS, VISIBLE_STATE } from './frame-layouts';
import { computePipeline, computePipelineNow } from '../gpu/pipeline-cache';

/** Tiles per block of the two-level scan (SCAN_BLOCK in shaders/tile_scan.wgsl). */
export const SCAN_BLOCK = 256;
/** The f32 +infinity's bits: the empty range's nearest depth. */
const INFINITY_BITS = 0x7f800000;

/** clipMarginPx that sends every kept splat through the clipped path. */
export const CLIP_ALWAYS = -1e30;
/** clipMarginPx that never clips: the oriented quads of before the cap. */
export const CLIP_NEVER = 1e30;
/** clipSlackPx that culls every splat the cap clips (a window minus 1e30 px is empty). */
export const CLIP_DROP = -1e30;

export interface SplatProjectorOptions {
  /**
   * How far past the window (pixels) a splat's quad may reach before it is
   * clipped to the window (default CLIP_MARGIN_PX, argued in
   * src/render/splat-size-cap.ts). Tests set CLIP_ALWAYS to send every
   * splat through the clipped path, CLIP_NEVER for the picture without it.
   */
  clipMarginPx?: number;
  /** How far the clipped rectangle reaches past the window (default CLIP_SLACK_PX); CLIP_DROP culls what the cap clips. */
  clipSlackPx?: number;
  /** False keeps off-screen splats (default true): tests compare pictures with and without culling. */
  frustumCull?: boolean;
}

/** Where a pass reads the sort's pairs count or the draw's arguments. */
export interface GpuCount {
  buffer: GPUBuffer;
  offset: number;
}

interface SceneBuffers {
  scene: GpuSplats;
  records: GPUBuffer;
  depths: GPUBuffer;
  state: GPUBuffer;
  /** Made once per scene: read every frame, never allocated per frame. */
  visibleCount: GpuCount;
  drawArgs: GpuCount;
  capacity: number;
  projectGroups: [number, number];
  scanGroups: [number, number];
  /** The project bind group of each variant used so far (layouts differ between pipelines). */
  project: (GPUBindGroup | undefined)[];
  chunked: boolean;
  scan: [GPUBindGroup, GPUBindGroup];
  /** The keys bind group of each pipeline (frame width, exact) for the pairs it was made for. */
  keys: [KeyedBindGroup | null, KeyedBindGroup | null];
}

/** Where the keys dispatch writes its pairs (the sort's input buffers, borrowed). */
export interface KeyPairs {
  keys: GPUBuffer;
  values: GPUBuffer;
}

interface KeyedBindGroup {
  pairs: KeyPairs;
  group: GPUBindGroup;
}

/** Project pipeline variant bits. */
const CHUNKED = 1;
const MARK_CULLED = 2;
const MASKED = 4;

export class SplatProjector {
  private buffers: SceneBuffers | null = null;
  private readonly resetRange = new Uint32Array([INFINITY_BITS, 0]);
  private readonly descriptor: GPUComputePassDescriptor = { label: 'SplatProjector' };

  static async create(device: GPUDevice, frame: GPUBuffer, options: SplatProjectorOptions = {}): Promise<SplatProjector> {
    const clipMarginPx = options.clipMarginPx ?? CLIP_MARGIN_PX;
    const clipSlackPx = options.clipSlackPx ?? CLIP_SLACK_PX;
    const frustumCull = options.frustumCull ?? true;
    // Override constants must be finite f32s: ±1e30 are the "always" and
    // "never" values (a window is never 1e30 px; f32 ends at 3.4e38).
    for (const [name, value] of [['clipMarginPx', clipMarginPx], ['clipSlackPx', clipSlackPx]] as const) {
      if (!(Math.abs(value) <= 1e30)) throw new RangeError(`SplatProjector: ${name} must be within ±1e30, got ${value}`);
    }
    const prelude = `${commonSource}\n${recordsSource}\n${dispatchSource}\n`;
    const [project, scan, keys] = await Promise.all([
      createCheckedShaderModule(device, 'SplatProjector.project', prelude + projectSource),
      createCheckedShaderModule(device, 'SplatProjector.scan', `${prelude}${sumSource}\n${tileScanSource}\n${scanSource}`),
      createCheckedShaderModule(device, 'SplatProjector.keys', `${prelude}${sumSource}\n${tileScanSource}\n${tileListSource}\n${keysSource}`),
    ]);
    const projectDescriptor = (variant: number): GPUComputePipelineDescriptor => {
      const chunked = (variant & CHUNKED) !== 0;
      const markCulled = (variant & MARK_CULLED) !== 0;
      const masked = (variant & MASKED) !== 0;
      return {
        label: `SplatProjector.project(${chunked ? 'chunked' : 'single'}${markCulled ? ', marking culled' : ''}${masked ? ', masked' : ''})`,
        layout: 'auto',
        compute: {
          module: project,
          entryPoint: 'main',
          constants: { chunked: chunked ? 1 : 0, mark_culled: markCulled ? 1 : 0, masked: masked ? 1 : 0, clip_margin_px: clipMarginPx, clip_slack_px: clipSlackPx, frustum_cull: frustumCull ? 1 : 0 },
        },
      };
    };
    // The variant every viewer frame of a one-buffer scene uses is made now;
    // the others when first needed (each costs a compile).
    const keysDescriptor = (exact: boolean): GPUComputePipelineDescriptor => ({
      label: `SplatProjector.keys${exact ? '(exact)' : ''}`,
      layout: 'auto',
      compute: { module: keys, entryPoint: 'main', constants: { exact_keys: exact ? 1 : 0 } },
    });
    const [first, scanBlocks, scanTotals, keysPipeline, exactKeysPipeline] = await Promise.all([
      computePipeline(device, projectDescriptor(0)),
      computePipeline(device, { label: 'SplatProjector.scanBlocks', layout: 'auto', compute: { module: scan, entryPoint: 'scan_blocks' } }),
      computePipeline(device, { label: 'SplatProjector.scanTotals', layout: 'auto', compute: { module: scan, entryPoint: 'scan_totals' } }),
      computePipeline(device, keysDescriptor(false)),
      computePipeline(device, keysDescriptor(true)),
    ]);
    return new SplatProjector(device, frame, first, (variant) => computePipelineNow(device, projectDescriptor(variant)), [scanBlocks, scanTotals], [
      keysPipeline,
      exactKeysPipeline,
    ]);
  }

  private readonly projectPipelines: (GPUComputePipeline | undefined)[] = [];
  /** The drawn mask bound for scenes without one (never read). */
  private readonly noMask: GPUBuffer;
  /** The tile list bound where a dispatch runs every tile. */
  private readonly noList: GPUBuffer;

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    first: GPUComputePipeline,
    private readonly makeProjectPipeline: (variant: number) => GPUComputePipeline,
    /** The two-level scan's dispatches (shaders/visible_scan.wgsl): per block of tiles, then the blocks' totals. */
    private readonly scanPipelines: [GPUComputePipeline, GPUComputePipeline],
    /** Keys at the frame's width, and exact 32-bit keys (the difference view's reference order). */
    private readonly keysPipelines: [GPUComputePipeline, GPUComputePipeline],
  ) {
    this.projectPipelines[0] = first;
    this.noMask = device.createBuffer({ label: 'SplatProjector.noMask', size: 16, usage: GPUBufferUsage.STORAGE });
    // Word 0 is 0: the dispatch runs every tile.
    this.noList = device.createBuffer({ label: 'SplatProjector.noList', size: 16, usage: GPUBufferUsage.STORAGE });
  }

  /** The project pipeline of a variant (CHUNKED | MARK_CULLED bits). */
  private projectPipeline(variant: number): GPUComputePipeline {
    return (this.projectPipelines[variant] ??= this.makeProjectPipeline(variant));
  }

  /** The records (ProjectedSplat per splat) the renderer reads; null before a scene is set. */
  get records(): GPUBuffer | null {
    return this.buffers?.records ?? null;
  }

  /** Exact view depths per splat (CULLED_DEPTH for culled ones); null before a scene is set. */
  get depths(): GPUBuffer | null {
    return this.buffers?.depths ?? null;
  }

  /** The VisibleState buffer (STORAGE | INDIRECT | COPY_SRC); null before a scene is set. */
  get state(): GPUBuffer | null {
    return this.buffers?.state ?? null;
  }

  /** Where the visible count lies (the sort's countBuffer). */
  get visibleCount(): GpuCount {
    return this.requireBuffers().visibleCount;
  }

  /** Where the drawIndirect arguments lie. */
  get drawArgs(): GpuCount {
    return this.requireBuffers().drawArgs;
  }

  /** The most splats keyed and drawn per frame. */
  get capacity(): number {
    return this.buffers?.capacity ?? 0;
  }

  /**
   * Projects `scene` from the next frame on. `capacity` (default: all its
   * splats) bounds the visible count; tests lower it to check the clamp.
   */
  setScene(scene: GpuSplats, capacity = scene.count): void {
    const old = this.buffers;
    if (old?.scene === scene && old.capacity === capacity) return;
    this.releaseScene();
    const device = this.device;
    const n = Math.max(1, scene.count);
    const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    if (n * PROJECTED_SPLAT.size > limit) {
      throw new RangeError(
        `${scene.count.toLocaleString('en-US')} splats need ${n * PROJECTED_SPLAT.size} bytes of projected records, ` +
          `over this GPU's ${limit}-byte buffer limit: at most ${Math.floor(limit / PROJECTED_SPLAT.size).toLocaleString('en-US')} splats fit`,
      );
    }
    const tiles = Math.ceil(n / PROJECT_TILE);
    const blocks = Math.ceil(tiles / SCAN_BLOCK);
    const buffer = (name: string, size: number, usage: GPUBufferUsageFlags) =>
      device.createBuffer({ label: `SplatProjector.${name}`, size: Math.max(16, Math.ceil(size / 16) * 16), usage });
    const records = buffer('records', n * PROJECTED_SPLAT.size, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC);
    const depths = buffer('depths', n * 4, GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC);
    const state = buffer('state', VISIBLE_STATE.size + 4 * (tiles + blocks), GPUBufferUsage.STORAGE | GPUBufferUsage.INDIRECT | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST);
    const header = new Uint32Array(VISIBLE_STATE.size / 4);
    header[VISIBLE_STATE.word('depth_min')] = INFINITY_BITS;
    header[VISIBLE_STATE.word('capacity')] = Math.min(capacity, scene.count);
    header[VISIBLE_STATE.word('draw_instance_count')] = 1;
    device.queue.writeBuffer(state, 0, header);

    const grid = (groups: number): [number, number] => {
      const x = Math.min(groups, device.limits.maxComputeWorkgroupsPerDimension);
      return [x, Math.ceil(groups / x)];
    };
    const scanGroup = (pipeline: GPUComputePipeline) =>
      device.createBindGroup({
        label: 'SplatProjector.scanBindGroup',
        layout: pipeline.getBindGroupLayout(0),
        entries: SCAN_SLOTS.entries({ frame: { buffer: this.frame }, state: { buffer: state } }),
      });
    this.buffers = {
      scene,
      records,
      depths,
      state,
      visibleCount: { buffer: state, offset: VISIBLE_STATE.offset('visible') },
      drawArgs: { buffer: state, offset: VISIBLE_STATE.offset('draw_vertex_count') },
      capacity: Math.min(capacity, scene.count),
      projectGroups: grid(tiles),
      scanGroups: grid(blocks),
      project: [],
      chunked: scene.chunks.length > 1,
      scan: [scanGroup(this.scanPipelines[0]), scanGroup(this.scanPipelines[1])],
      keys: [null, null],
    };
  }

  /**
   * Records the projector into `encoder` for the scene set. With `pairs`
   * (the sort's input buffers, borrowed) the kept splats are keyed there
   * and counted; without, culled splats are marked for an order that names
   * any splat. With `exactPairs`, the kept splats are also keyed there with
   * exact 32-bit keys (and counted). Call after the frame's uniforms are
   * written.
   */
  encode(
    encoder: GPUCommandEncoder,
    pairs: KeyPairs | null,
    timestampWrites?: GPUComputePassTimestampWrites,
    exactPairs: KeyPairs | null = null,
  ): void {
    const b = this.requireBuffers();
    // A new range every frame: the writes are queued before this frame's commands (and a pool's mask pass recorded).
    this.device.queue.writeBuffer(b.state, 0, this.resetRange);
    b.scene.drawnMaskPass?.(encoder);
    const descriptor = this.descriptor;
    setTimestampWrites(descriptor, timestampWrites);
    const variant = (b.chunked ? CHUNKED : 0) | (pairs ? 0 : MARK_CULLED) | (b.scene.drawnMask ? MASKED : 0);
    // A world's pool: only its drawn tiles are projected (an order that may name any splat needs every record); the others keep none, their counts cleared for the scan.
    const listed = pairs ? b.scene.drawnTiles : null;
    if (listed) encoder.clearBuffer(b.state, VISIBLE_STATE.size, 4 * Math.ceil(Math.max(1, b.scene.count) / PROJECT_TILE));
    const pass = encoder.beginComputePass(descriptor);
    const pipeline = this.projectPipeline(variant);
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, (b.project[variant] ??= this.projectBindGroup(b, pipeline)));
    dispatchGrid(pass, listed?.groups ?? b.projectGroups);
    if (pairs || exactPairs) {
      pass.setPipeline(this.scanPipelines[0]);
      pass.setBindGroup(0, b.scan[0]);
      pass.dispatchWorkgroups(...b.scanGroups);
      pass.setPipeline(this.scanPipelines[1]);
      pass.setBindGroup(0, b.scan[1]);
      pass.dispatchWorkgroups(1);
    }
    if (pairs) this.encodeKeys(pass, b, 0, pairs);
    if (exactPairs) this.encodeKeys(pass, b, 1, exactPairs);
    pass.end();
  }

  private encodeKeys(pass: GPUComputePassEncoder, b: SceneBuffers, which: 0 | 1, pairs: KeyPairs): void {
    const pipeline = this.keysPipelines[which];
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, this.keysBindGroup(b, which, pairs));
    // Kept splats lie only in the drawn tiles of a world's pool.
    dispatchGrid(pass, b.scene.drawnTiles?.groups ?? b.projectGroups);
  }

  private projectBindGroup(b: SceneBuffers, pipeline: GPUComputePipeline): GPUBindGroup {
    return this.device.createBindGroup({
      label: 'SplatProjector.projectBindGroup',
      layout: pipeline.getBindGroupLayout(0),
      entries: [
        ...PROJECT_SLOTS.entries({
          frame: { buffer: this.frame },
          records: { buffer: b.records },
          depths: { buffer: b.depths },
          state: { buffer: b.state },
          // Bound whatever the variant (the layout is the shader's); read only by the masked one (its tile list too).
          drawn_mask: { buffer: b.scene.drawnMask ?? this.noMask },
        }),
        ...b.scene.bindGroupEntries(),
      ],
    });
  }

  private keysBindGroup(b: SceneBuffers, which: 0 | 1, pairs: KeyPairs): GPUBindGroup {
    const cached = b.keys[which];
    if (cached && cached.pairs.keys === pairs.keys && cached.pairs.values === pairs.values) return cached.group;
    const tiles = b.scene.drawnTiles;
    const group = this.device.createBindGroup({
      label: `SplatProjector.keysBindGroup${which === 1 ? '(exact)' : ''}`,
      layout: this.keysPipelines[which].getBindGroupLayout(0),
      entries: KEYS_SLOTS.entries({
        frame: { buffer: this.frame },
        depths: { buffer: b.depths },
        state: { buffer: b.state },
        keys: { buffer: pairs.keys },
        values: { buffer: pairs.values },
        tile_list: tiles ? { buffer: tiles.buffer, offset: tiles.offset, size: tiles.bytes } : { buffer: this.noList },
      }),
    });
    b.keys[which] = { pairs: { keys: pairs.keys, values: pairs.values }, group };
    return group;
  }

  private requireBuffers(): SceneBuffers {
    if (!this.buffers) throw new Error('SplatProjector: no scene set');
    return this.buffers;
  }

  /** Frees what it holds for the scene (no scene is shown); it takes another with setScene. */
  releaseScene(): void {
    const b = this.buffers;
    if (!b) return;
    for (const buffer of [b.records, b.depths, b.state]) buffer.destroy();
    this.buffers = null;
  }

  destroy(): void {
    this.releaseScene();
    this.noMask.destroy();
    this.noList.destroy();
  }
}

/** Dispatches an x × y grid; not an empty one (a pool drawing nothing lists no tile, and Dawn warns of it). */
function dispatchGrid(pass: GPUComputePassEncoder, [x, y]: readonly [number, number]): void {
  if (x > 0) pass.dispatchWorkgroups(x, y);
}
