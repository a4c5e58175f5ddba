/**
 * The frame's tile-renderer path (owned by SplatFrame), DOM-free: the
 * compute tile renderer (src/render/tiles/), made when first asked for,
 * writes each pixel once into a storage texture of the accumulation's
 * format (8-bit for 'direct'), resolved to the output format in a last
 * pass. The sort difference view and the per-pixel order view draw a
 * second picture into a second tile target and resolve the two as the
 * heat map of where they differ.
 */
import type { TimestampSpan } from '../../gpu/pass-timer';
import type { FrameParameters } from '../../render/frame-uniforms';
import { SplatRenderer, type SplatDraw, type SplatDrawTarget } from '../../render/splat-renderer';
import type { SplatResolve } from '../../render/splat-resolve';
import { AccumulationTargets, type Accumulation } from '../../render/accumulation-target';
import { tilePictureUsage, TileRenderer, type TileDrawTarget, type TilePairCounts, type TilePictureFormat, type TileRendererOptions } from '../../render/tiles/tile-renderer';
import type { GpuSplats } from '../../scene/gpu-splats';

/** The picture format the tile renderer writes for an accumulation: the same where it is a storage format, else 8 or 16 bits. */
export function tilePictureFormat(accumulation: Accumulation): TilePictureFormat {
  if (accumulation === 'direct') return 'rgba8unorm';
  return accumulation === 'rgba32float' ? 'rgba32float' : 'rgba16float';
}

/** The second picture of a tile frame's heat map: its draw, and whether it is blended per pixel. */
export interface SecondTileDraw {
  draw: SplatDraw | null;
  maxEntries: number;
  perPixelScene: GpuSplats | null;
}

export class FrameTiles {
  /** The tile renderer, once prepare has made it. */
  private tiles: TileRenderer | null = null;
  private tilesMade: Promise<void> | null = null;
  private perPixelMade: Promise<void> | null = null;
  private readonly tileTargets: AccumulationTargets;
  /** Reused every frame: where the tile renderer draws. */
  private readonly tileTarget: TileDrawTarget = { picture: null as unknown as GPUTextureView, width: 0, height: 0, background: [0, 0, 0] };
  /** Reused every frame: the second picture of a tile frame's heat map. */
  private readonly secondTileDraw: SecondTileDraw = { draw: null, maxEntries: 0, perPixelScene: null };
  /** Quads into the output format: they draw a tile frame whose pairs did not fit, in the resolve pass. */
  private outputQuads: SplatRenderer | null = null;
  private tileDrawn = false;

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
    this.tileTargets = new AccumulationTargets(device, tilePictureFormat(accumulation), tilePictureUsage());
  }

  /** Makes the tile renderer (its shaders and pair sort); frames may draw with tiles once this resolves. */
  prepare(): Promise<void> {
    return (this.tilesMade ??= Promise.all([
      TileRenderer.create(this.device, this.uniforms, tilePictureFormat(this.accumulation), this.options),
      this.accumulation === 'direct' ? this.quads : SplatRenderer.create(this.device, this.uniforms, this.format),
    ]).then(([tiles, outputQuads]) => {
      this.outputQuads = outputQuads;
      this.tiles = tiles;
    }));
  }

  /**
   * Makes what the per-pixel order needs (the tile renderer, then its
   * per-pixel raster); frames asking for that order draw centre depths
   * until this resolves.
   */
  preparePerPixel(): Promise<void> {
    return (this.perPixelMade ??= this.prepare().then(() => this.tiles!.preparePerPixel()));
  }

  /** True once preparePerPixel has finished. */
  get perPixelReady(): boolean {
    return this.tiles?.perPixelReady ?? false;
  }

  /** True once prepare has finished. */
  get ready(): boolean {
    return this.tiles !== null;
  }

  /** The tile renderer (null before prepare finished): its pair figures and profile. */
  get renderer(): TileRenderer | null {
    return this.tiles;
  }

  /**
   * Whether the tile renderer draws this frame: it was asked for, is made,
   * and the view needs no more pairs than the device sorts (quads draw it
   * otherwise). readPairs reads the pairs of a frame it drew only.
   */
  drawsFrame(asked: boolean): boolean {
    this.tileDrawn = asked && this.tiles !== null && !this.tiles.beyondLimit;
    return this.tileDrawn;
  }

  /**
   * The tile pairs of the last frame if the tile renderer drew it, once the
   * GPU has run it (call after its submit; null otherwise, or when that
   * frame's read was skipped). `overflowed`: its picture was not drawn,
   * the room is grown: draw the frame again.
   */
  readPairs(): Promise<TilePairCounts> | null {
    return this.tileDrawn ? (this.tiles?.readPairs() ?? null) : null;
  }

  /** The second picture of a heat map (reused every frame): `draw`, blended per pixel in `perPixelScene` (null: centre depths). */
  secondDraw(draw: SplatDraw | null, maxEntries: number, perPixelScene: GpuSplats | null): SecondTileDraw {
    const second = this.secondTileDraw;
    second.draw = draw;
    second.maxEntries = maxEntries;
    second.perPixelScene = perPixelScene;
    return second;
  }

  /**
   * The tile renderer's passes (for a frame drawsFrame gave it): the
   * picture (`draw`, entry counts, at most `maxEntries`, blended per pixel
   * in `perPixelScene`; null: centre depths), and with `second` (secondDraw)
   * a second picture (the exact order's, or the same order blended per
   * pixel) drawn into the second tile target and resolved with the first
   * as the heat map of where they differ; else the same resolve as the
   * quads'. Timed as one span ('render').
   */
  encode(
    encoder: GPUCommandEncoder,
    parameters: FrameParameters,
    target: SplatDrawTarget,
    draw: SplatDraw | null,
    maxEntries: number,
    perPixelScene: GpuSplats | null,
    second: SecondTileDraw | null,
    span: TimestampSpan | undefined,
  ): void {
    const tiles = this.tiles!;
    const { width, height } = parameters;
    const picture = this.tileTargets.view(0, width, height);
    const tileTarget = this.tileTarget;
    tileTarget.picture = picture;
    tileTarget.width = width;
    tileTarget.height = height;
    tileTarget.background = target.background;
    tileTarget.perPixelScene = perPixelScene;
    const fallback = tiles.encode(encoder, tileTarget, draw, maxEntries, 0, span?.first);
    if (!second) {
      if (fallback) this.resolve.encodeTilePicture(encoder, picture, fallback.state, target.view, target.background, this.outputQuads!, fallback.draw, span?.last);
      else this.resolve.encodePicture(encoder, picture, target.view, span?.last);
      return;
    }
    const other = this.tileTargets.view(1, width, height);
    tileTarget.picture = other;
    tileTarget.perPixelScene = second.perPixelScene;
    tiles.encode(encoder, tileTarget, second.draw, second.maxEntries, 1);
    this.resolve.encodeDifference(encoder, picture, other, target.view, width * height, span?.last);
  }

  destroy(): void {
    this.tileTargets.destroy();
    this.tiles?.destroy();
  }
}
