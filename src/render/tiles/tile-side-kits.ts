/**
 * The tile renderer's passes that depend on the tiles' side (tile-side.ts):
 * the binning and the raster (with its ranges and chunks), made for
 * 16-pixel tiles at once and for 8-pixel tiles the first time a frame
 * wants them. Until then, on a device that cannot make them, and by
 * default on a software adapter, frames draw 16-pixel tiles: the picture is
 * the same either way.
 */
import { TileBinning } from './tile-binning';
import { BLOCK_LISTS_BELOW, checkedPixelQueue, DEFAULT_PIXEL_QUEUE, rasterArrivals, TileRaster, type TilePictureFormat } from './tile-raster';
import { TILE_SIZE, tileSideFor, type TileSide, type TileSideCounts, type TileSideSetting } from './tile-side';
import { isSoftwareDevice } from '../../gpu/software-adapter';
import type { TileRendererOptions } from './tile-renderer-options';

/** The passes made for one tile side. */
export interface SideKit {
  binning: TileBinning;
  raster: TileRaster;
}

export class TileSideKits {
  private readonly kits: Record<TileSide, SideKit | null>;
  private readonly made: Partial<Record<TileSide, Promise<SideKit>>>;
  /** Sides whose passes this device could not make: asked for once, never again. */
  private readonly failed = new Set<TileSide>();
  private destroyed = false;
  /**
   * The options' side, by default 'auto' on a GPU and 16 on a software
   * adapter: there a workgroup costs about a millisecond, so a quarter of
   * the pixels a workgroup buys little, and the 8-pixel pipelines take
   * seconds to make (a test along a slow turn of the 150k scene took 76 s
   * with the switch and 67 s without, on 2 cores).
   */
  private readonly setting: TileSideSetting;

  static async create(device: GPUDevice, frame: GPUBuffer, format: TilePictureFormat, options: TileRendererOptions): Promise<TileSideKits> {
    return new TileSideKits(device, frame, format, options, await makeSideKit(device, frame, format, TILE_SIZE, options));
  }

  private constructor(
    private readonly device: GPUDevice,
    private readonly frame: GPUBuffer,
    private readonly format: TilePictureFormat,
    private readonly options: TileRendererOptions,
    kit: SideKit,
  ) {
    this.kits = { 16: kit, 8: null };
    this.setting = options.tileSide ?? (isSoftwareDevice(device) ? TILE_SIZE : 'auto');
    this.made = { [TILE_SIZE]: Promise.resolve(kit) };
  }

  /** The passes of `side`, made (16 always is; another once prepare resolved). */
  get(side: TileSide): SideKit {
    const kit = this.kits[side];
    if (!kit) throw new Error(`TileSideKits: tiles of ${side} pixels were asked for before their passes were made`);
    return kit;
  }

  /** Makes the passes of `side` (once), and with `perPixel` their per-pixel raster. */
  async prepare(side: TileSide, perPixel = false): Promise<void> {
    let made = this.made[side];
    if (!made) {
      made = makeSideKit(this.device, this.frame, this.format, side, this.options).then(
        (kit) => {
          if (this.destroyed) destroySideKit(kit);
          else this.kits[side] = kit;
          return kit;
        },
        (error: unknown) => {
          this.failed.add(side);
          throw error;
        },
      );
      this.made[side] = made;
    }
    const kit = await made;
    if (perPixel) await kit.raster.preparePerPixel();
  }

  /**
   * The side of the next frame, given the frame read last and the most
   * pairs the device may sort: tileSideFor's, where its passes (and the
   * order's raster) are made; else 16, asking for them (no more once the
   * device failed to make them).
   */
  sideFor(last: TileSideCounts | null, pairLimit: number, perPixel: boolean): TileSide {
    const wanted = tileSideFor(last, this.setting, pairLimit);
    if (wanted === TILE_SIZE || this.failed.has(wanted)) return TILE_SIZE;
    const kit = this.kits[wanted];
    if (!kit || (perPixel && !kit.raster.perPixelReady)) {
      this.prepare(wanted, perPixel).catch(() => undefined);
      return TILE_SIZE;
    }
    return wanted;
  }

  destroy(): void {
    this.destroyed = true;
    for (const kit of Object.values(this.kits)) if (kit) destroySideKit(kit);
  }
}

async function makeSideKit(device: GPUDevice, frame: GPUBuffer, format: TilePictureFormat, side: TileSide, options: TileRendererOptions): Promise<SideKit> {
  const [binning, raster] = await Promise.all([
    TileBinning.create(device, frame, options.footprint, side),
    TileRaster.create(device, frame, format, side, {
      pixelQueue: checkedPixelQueue(options.pixelQueue ?? DEFAULT_PIXEL_QUEUE),
      listsBelow: options.blockListsBelow ?? BLOCK_LISTS_BELOW,
      arrivals: { ...rasterArrivals(isSoftwareDevice(device)), ...options.arrivals },
    }),
  ]);
  return { binning, raster };
}

function destroySideKit(kit: SideKit): void {
  kit.binning.destroy();
  kit.raster.destroy();
}
