/**
 * The projector's tiles that hold a drawn splat of a world's pool, as the
 * list its project and keys dispatches run over (shaders/tile_list.wgsl):
 * a workgroup a listed tile, where without it they would run one for each
 * tile of the pool's capacity, most of whose splats no frame draws (a 4M
 * budget in a pool of 10-26M). The pool (splat-pool.ts) keeps the list
 * in its mask's buffer, after the opacity scales (the projector reads it
 * there: a binding of its own would pass the 8 storage buffers a stage
 * may have by default), and sets it whenever the runs it draws change.
 * DOM-free.
 *
 * Measured on SwiftShader (2 cores, a published 9.9M-splat world at a 1M
 * budget in a pool of 10M, 320×180): the projector's pass took 22 s a
 * frame running every tile, and its masked invocations went through the
 * whole shader.
 */
import { POOL_PIECE_WORDS } from './splat-layouts';

/** Splats per projector tile: the workgroup size of the project and keys dispatches (PROJECT_TILE in WGSL). */
export const PROJECT_TILE = 256;

export class DrawnTiles {
  /** Word 0: 1 (the dispatch runs the list); then the tiles listed, padded to the grid with `tiles`; in `buffer` from `offset`. */
  readonly buffer: GPUBuffer;
  readonly offset: number;
  /** Bytes the list may take in `buffer`. */
  readonly bytes: number;
  /** The dispatch's grid over the tiles listed: x · y workgroups, x · y ≥ listed (0 × 1 while none is). */
  readonly groups: [number, number] = [0, 1];
  /** Tiles of the scene: the padding's tile, past the last. */
  private readonly tiles: number;
  private readonly list: Uint32Array<ArrayBuffer>;
  /** Per tile, whether the list being made holds it already (all clear between calls). */
  private readonly seen: Uint8Array;
  private listedNow = 0;

  /** Words the list of a scene of `splats` takes at most (its `bytes` / 4). */
  static words(device: GPUDevice, splats: number): number {
    const tiles = Math.ceil(Math.max(1, splats) / PROJECT_TILE);
    // Every tile, and the padding of the grid's last row (under a row).
    return 1 + tiles + Math.min(tiles, device.limits.maxComputeWorkgroupsPerDimension);
  }

  /** The list of a scene of `splats`, kept in `buffer` from byte `offset` (DrawnTiles.words(…) words of room). */
  constructor(private readonly device: GPUDevice, splats: number, buffer: GPUBuffer, offset: number) {
    this.tiles = Math.ceil(Math.max(1, splats) / PROJECT_TILE);
    const words = DrawnTiles.words(device, splats);
    this.buffer = buffer;
    this.offset = offset;
    this.bytes = words * 4;
    this.list = new Uint32Array(words);
    this.list[0] = 1;
    this.seen = new Uint8Array(this.tiles);
    device.queue.writeBuffer(buffer, offset, this.list, 0, 1);
  }

  /** Tiles listed. */
  get listed(): number {
    return this.listedNow;
  }

  /**
   * Lists the tiles the first `n` stretches of `pieces` cover, each once:
   * as the pool lists them, POOL_PIECE_WORDS words a stretch, [first, end)
   * of splats first (an empty one covers none).
   */
  set(pieces: Uint32Array, n: number): void {
    const { list, seen } = this;
    let listed = 0;
    for (let i = 0; i < n; i++) {
      const from = pieces[POOL_PIECE_WORDS * i]!;
      const to = pieces[POOL_PIECE_WORDS * i + 1]!;
      const end = from < to ? Math.ceil(to / PROJECT_TILE) : 0;
      for (let t = Math.floor(from / PROJECT_TILE); t < end; t++) {
        if (seen[t]) continue;
        seen[t] = 1;
        list[1 + listed++] = t;
      }
    }
    for (let i = 1; i <= listed; i++) seen[list[i]!] = 0;
    const x = Math.min(listed, this.device.limits.maxComputeWorkgroupsPerDimension);
    const y = x === 0 ? 1 : Math.ceil(listed / x);
    list.fill(this.tiles, 1 + listed, 1 + x * y);
    this.groups[0] = x;
    this.groups[1] = y;
    this.listedNow = listed;
    this.device.queue.writeBuffer(this.buffer, this.offset, list, 0, 1 + x * y);
  }
}
