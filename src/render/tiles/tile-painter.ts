/**
 * The compute tile renderer as a painter (../painter.ts), made when first
 * asked for: it writes each pixel once, into the output itself where a
 * compute pass may write it (no resolve pass: 0.03 ms of a 1920×1080 frame
 * on an H200), else into a storage texture of the accumulation's format
 * (8-bit for 'direct') resolved to the output format in a last pass. The per-pixel order is its option: prepare(true) makes
 * the per-pixel raster, and a picture with a `perPixel` scene blends each
 * pixel's splats by their depth along its ray. A heat map (the sort
 * difference view, the per-pixel order view) draws a second picture into a
 * second tile target and resolves the two as where they differ. A frame
 * whose pairs outgrew the buffers is drawn by quads in the resolve pass
 * (the buffers grow once its pairs are read); a view needing more pairs
 * than the device sorts is not painted here at all (`failure` says so,
 * and the frame's quad painter draws it). DOM-free.
 */
import type { TimestampSpan } from '../../gpu/pass-timer';
import { AccumulationTargets, type Accumulation } from '../accumulation-target';
import { drawOf, reusedDraw, type PaintedPicture, type PaintJob, type Painter } from '../painter';
import { SplatRenderer, type KeptSplats, type SplatDraw } from '../splat-renderer';
import type { ResolveTarget, SplatResolve } from '../splat-resolve';
// Types only: the tile renderer itself (its shaders, binning and pair sort) is a chunk of its own, loaded by prepare.
import type { TileDrawTarget, TileFallback, TilePairCounts, TilePictureFormat, TileRenderer, TileRendererOptions } from './tile-renderer';
import { unbound } from '../../gpu/unbound';
import { storageWritable } from '../output-target';

/** Texture usage a tile picture needs (a function: the WebGPU globals exist only once a device does, in Node). */
export function tilePictureUsage(): GPUTextureUsageFlags {
  return GPUTextureUsage.STORAGE_BINDING | GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.TEXTURE_BINDING;
}

/**
 * The picture format the tile renderer writes for an output of `output`
 * format: the output's own where a compute pass may write it, so that a
 * writable output is drawn into directly, with no resolve pass after (the
 * raster writes each pixel once, from f32: nothing is lost); else the
 * accumulation's where it is a storage format, else 8 or 16 bits.
 */
export function tilePictureFormat(device: GPUDevice, accumulation: Accumulation, output: GPUTextureFormat): TilePictureFormat {
  // The formats a compute pass may write (output-target.ts) are those the raster writes.
  if (storageWritable(device, output)) return output as TilePictureFormat;
  if (accumulation === 'direct') return 'rgba8unorm';
  return accumulation === 'rgba32float' ? 'rgba32float' : 'rgba16float';
}

export class TilePainter implements Painter {
  readonly renderer = 'tiles';
  /** The tile renderer, once prepare has made it. */
  private tiles: TileRenderer | null = null;
  private made: Promise<void> | null = null;
  private perPixelMade: Promise<void> | null = null;
  private madeError: string | null = null;
  private readonly tileTargets: AccumulationTargets;
  // Reused every frame: nothing is allocated per frame.
  private readonly tileTarget: TileDrawTarget = { picture: unbound<GPUTextureView>(), width: 0, height: 0, background: [0, 0, 0] };
  private readonly output: ResolveTarget = { view: unbound<GPUTextureView>(), writable: false, width: 0, height: 0 };
  /** A profiled frame's empty pass after the resolve, which ends the 'render' span (the resolve is timed on its own). */
  private readonly spanEnd: GPUComputePassDescriptor = { label: 'TilePainter.spanEnd' };
  /** The pass that carries the resolve's timestamps where a picture drawn into the output has none (nothing was binned). */
  private readonly noResolve: GPUComputePassDescriptor = { label: 'TilePainter.noResolve' };
  /** The format the tile renderer writes (tilePictureFormat). */
  private readonly pictureFormat: TilePictureFormat;
  private readonly draws: [SplatDraw, SplatDraw] = [reusedDraw(), reusedDraw()];
  private readonly kept: KeptSplats = { depths: unbound<GPUBuffer>(), visible: unbound<GPUBuffer>(), capacity: 0 };
  /** Quads into the output format: they draw a tile frame whose pairs did not fit, in the resolve pass. */
  private outputQuads: SplatRenderer | null = null;
  private painted = false;
  private destroyed = false;

  constructor(
    private readonly device: GPUDevice,
    private readonly uniforms: GPUBuffer,
    /** The output's format (the canvas's, a PNG's). */
    private readonly format: GPUTextureFormat,
    private readonly accumulation: Accumulation,
    /** The frame's quads: those of 'direct' already draw into the output format. */
    private readonly quads: SplatRenderer,
    private readonly resolve: SplatResolve,
    private readonly options: TileRendererOptions,
  ) {
    this.pictureFormat = tilePictureFormat(device, accumulation, format);
    this.tileTargets = new AccumulationTargets(device, this.pictureFormat, tilePictureUsage());
  }

  /** Makes the tile renderer (its shaders and pair sort), and with `perPixel` its per-pixel raster. */
  prepare(perPixel = false): Promise<void> {
    this.made ??= Promise.all([
      import('./tile-renderer').then(({ TileRenderer }) => TileRenderer.create(this.device, this.uniforms, this.pictureFormat, this.options)),
      this.accumulation === 'direct' ? this.quads : SplatRenderer.create(this.device, this.uniforms, this.format),
    ]).then(([tiles, outputQuads]) => {
      // Destroyed while it was being made (its viewer went away): it frees what arrived and keeps nothing.
      if (this.destroyed) {
        tiles.destroy();
        return;
      }
      this.outputQuads = outputQuads;
      this.tiles = tiles;
    });
    const wanted = perPixel ? (this.perPixelMade ??= this.made.then(() => this.tiles?.preparePerPixel())) : this.made;
    return wanted.catch((error: unknown) => {
      this.madeError ??= `the tile renderer could not be made: ${error instanceof Error ? error.message : String(error)}; drawing with quads`;
      throw error;
    });
  }

  isReady(perPixel = false): boolean {
    return this.tiles !== null && (!perPixel || this.tiles.perPixelReady);
  }

  get failure(): string | null {
    return this.madeError;
  }

  get notice(): string | null {
    return this.tiles?.cutNotice ?? null;
  }

  get canPaint(): boolean {
    return this.tiles !== null;
  }

  /** The tile renderer (null before prepare finished): its pair figures and profile. */
  get tileRenderer(): TileRenderer | null {
    return this.tiles;
  }

  /**
   * The tile renderer's passes, timed as one span ('render'): the picture,
   * and with a second picture (the exact order's, or the same order
   * blended per pixel) that one into the second tile target, resolved
   * with the first as their heat map; else the same resolve as the quads'.
   */
  paint(job: PaintJob): void {
    this.painted = true;
    const { encoder, target, timing } = job;
    const { width, height } = job.parameters;
    // An output of the picture's format that a compute pass may write is drawn into itself: no resolve pass.
    const direct = !job.second && (target.writable ?? false) && this.pictureFormat === this.format;
    const picture = direct ? target.view : this.tileTargets.view(0, width, height);
    const tileTarget = this.tileTarget;
    tileTarget.picture = picture;
    tileTarget.width = width;
    tileTarget.height = height;
    tileTarget.background = target.background;
    const fallback = this.encodePicture(job, job.picture, 0, timing?.span.first);
    const tiles = this.tiles!;
    // A profiled frame times the resolve as a pass of its own, and ends the span on an empty pass after it.
    const profiled = tiles.resolveTimestampWrites;
    const resolveWrites = profiled ?? timing?.span.last;
    if (!job.second) {
      const output = this.output;
      output.view = target.view;
      output.writable = target.writable ?? false;
      output.width = width;
      output.height = height;
      if (direct && fallback) this.resolve.encodeTileFallback(encoder, output, this.outputQuads!, fallback.draw, resolveWrites);
      else if (direct) this.endWithoutResolve(encoder, resolveWrites);
      else if (fallback) this.resolve.encodeTilePicture(encoder, picture, fallback.state, output, target.background, this.outputQuads!, fallback.draw, resolveWrites);
      else this.resolve.encodePicture(encoder, picture, output, resolveWrites);
    } else {
      const other = this.tileTargets.view(1, width, height);
      tileTarget.picture = other;
      this.encodePicture(job, job.second, 1, undefined);
      this.resolve.encodeDifference(encoder, picture, other, target.view, width * height, resolveWrites);
    }
    if (profiled && timing) {
      this.spanEnd.timestampWrites = timing.span.last;
      encoder.beginComputePass(this.spanEnd).end();
    }
    tiles.finishProfile(encoder);
  }

  /** Where no resolve pass follows a picture drawn into the output, an empty pass carries the resolve's timestamps (if any). */
  private endWithoutResolve(encoder: GPUCommandEncoder, writes: GPUComputePassTimestampWrites | undefined): void {
    if (!writes) return;
    this.noResolve.timestampWrites = writes;
    encoder.beginComputePass(this.noResolve).end();
  }

  /** One picture into the tile target set up by paint (its slot's count and fallback are its own). */
  private encodePicture(job: PaintJob, picture: PaintedPicture, slot: 0 | 1, beginning: TimestampSpan['first'] | undefined): TileFallback | null {
    this.tileTarget.perPixelScene = picture.perPixel;
    const draw = drawOf(this.draws[slot], job.records, picture.order, 'entries');
    // The per-pixel order's ray shapes are worked out for the splats the projector kept, at their slots among them.
    if (draw) {
      draw.depths = job.depths ?? undefined;
      draw.kept = undefined;
      if (job.depths && job.visible) {
        draw.kept = this.kept;
        draw.kept.depths = job.depths;
        draw.kept.visible = job.visible;
        draw.kept.capacity = job.capacity;
      }
    }
    return this.tiles!.encode(job.encoder, this.tileTarget, draw, picture.order?.maxCount ?? 0, slot, beginning);
  }

  /** The tile pairs of the last frame it painted, once the GPU ran it (`overflowed`: draw that frame again). */
  readStatistics(): Promise<TilePairCounts> | null {
    const painted = this.painted;
    this.painted = false;
    return painted ? (this.tiles?.readPairs() ?? null) : null;
  }

  destroy(): void {
    this.destroyed = true;
    this.tileTargets.destroy();
    this.tiles?.destroy();
    this.tiles = null;
  }
}
