/**
 * The draw order of the GPU radix sort: the projector keys the kept splats
 * into the sort's input buffers, the sort orders them back to front, on as
 * many of them as the projector counted (read on the GPU, never on the CPU).
 */
import { GpuRadixSort, type SortEncodeOptions } from '../../../sort/gpu-radix-sort';
import { boundsGpuCounts } from '../../../sort/count-bound';
import type { DrawOrder, OrderFrame, OrderedSplats } from './draw-order';
import { setTimestampWrites } from '../../../gpu/pass-timer';
import { unbound } from '../../../gpu/unbound';

export class GpuSortOrder implements DrawOrder {
  /** Reused every frame (nothing allocated per frame). */
  private readonly sortOptions: SortEncodeOptions = { keyBits: 32 };
  private readonly countBuffer = { buffer: unbound<GPUBuffer>(), offset: 0 };
  private readonly pairs = { keys: unbound<GPUBuffer>(), values: unbound<GPUBuffer>() };
  private readonly drawn: OrderedSplats = { order: unbound<GPUBuffer>(), count: 0, drawArgs: null, maxCount: 0 };

  static async create(device: GPUDevice): Promise<GpuSortOrder> {
    return new GpuSortOrder(await GpuRadixSort.create(device, { capacity: 1024, label: 'GpuSortOrder.sort' }));
  }

  private readonly bounded: boolean;

  constructor(readonly sorter: GpuRadixSort) {
    this.bounded = boundsGpuCounts(sorter.device);
  }

  keyTarget(sceneCount: number): { keys: GPUBuffer; values: GPUBuffer } {
    this.sorter.ensureCapacity(sceneCount);
    // Refreshed every frame (the buffers change when the capacity grows), allocated once.
    const target = this.pairs;
    target.keys = this.sorter.keys;
    target.values = this.sorter.values;
    return target;
  }

  encode(frame: OrderFrame): OrderedSplats {
    const sort = this.sortOptions;
    this.countBuffer.buffer = frame.visibleCount.buffer;
    this.countBuffer.offset = frame.visibleCount.offset;
    sort.countBuffer = this.countBuffer;
    // Dispatched directly for the most the projector can count, where that beats sizing them from its count (count-bound.ts).
    sort.countBound = this.bounded ? Math.min(frame.capacity, this.sorter.capacity) : undefined;
    sort.keyBits = frame.keyBits;
    setTimestampWrites(sort, frame.timestampWrites);
    const drawn = this.drawn;
    drawn.order = this.sorter.encode(frame.encoder, sort).values;
    drawn.count = frame.visibleCount;
    drawn.drawArgs = frame.drawArgs;
    drawn.maxCount = frame.capacity;
    return drawn;
  }

  destroy(): void {
    this.sorter.destroy();
  }
}
