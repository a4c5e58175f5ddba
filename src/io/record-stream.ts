/**
 * The part every streaming decoder of fixed-size records shares (INRIA PLY
 * vertex rows, .splat records): bytes are pushed as they arrive, whole
 * records are handed to the decoder in blocks of at most BLOCK_BYTES, 4-byte
 * aligned (copied to aligned memory when they arrive at an odd offset, so
 * Float32Array views work), and a record split across two pushes is carried
 * over. The decoded scene grows as records come (growSplatCloud) when the
 * record count is not known up front. DOM-free.
 */
import { allocateSplatCloud, type ShDegree, type SplatCloud } from '../scene/splat-cloud';
import { checkSplatCount, DEFAULT_LOAD_LIMITS, SplatLimitError, type LoadLimits } from './load-limits';

/**
 * Bytes decoded at a time: a misaligned block is copied to aligned memory
 * first, and a block this size stays in cache between the copy and the
 * decode (a whole-file push is 30% slower in 4 MB blocks).
 */
const BLOCK_BYTES = 256 * 1024;
/** The most records between two progress reports, and the first capacity of a growing scene. */
const PROGRESS_RECORDS = 65536;

export interface RecordStreamOptions {
  recordSize: number;
  /** Records expected; undefined: as many as arrive (a format with no header). */
  count: number | undefined;
  /** Allocate the expected count at once (its size was checked against the file's). */
  preallocate: boolean;
  shDegree: ShDegree;
  /** Bytes to skip before the first record (elements before the PLY vertices). */
  skip?: number;
  /** Fraction of the expected records decoded; only with a count. */
  onProgress?: (fraction: number) => void;
  /**
   * The most splats the renderer can hold: a stream without a count is
   * refused as soon as it delivers more (a declared count is checked by the
   * format's own header check, with its own words).
   */
  limits?: LoadLimits;
}

export abstract class RecordStream {
  protected readonly recordSize: number;
  /** Records expected, or Infinity when the stream decides. */
  protected readonly expected: number;
  protected cloud: SplatCloud;
  /** Records decoded so far. */
  protected records = 0;
  /** Bytes that arrived after the expected records: not decoded, only counted. */
  protected trailing = 0;
  private readonly shDegree: ShDegree;
  private readonly limits: LoadLimits;
  private capacity: number;
  private skipLeft: number;
  private readonly carry: Uint8Array;
  private carryLength = 0;
  private scratch = new Uint8Array(0);
  private readonly onProgress: ((fraction: number) => void) | undefined;
  /** About 16 reports per file, at most PROGRESS_RECORDS apart. */
  private readonly progressStep: number;
  private nextProgress: number;

  constructor(options: RecordStreamOptions) {
    this.recordSize = options.recordSize;
    this.expected = options.count ?? Infinity;
    this.shDegree = options.shDegree;
    this.limits = options.limits ?? DEFAULT_LOAD_LIMITS;
    this.capacity = options.preallocate && options.count !== undefined
      ? options.count
      : Math.min(this.expected, PROGRESS_RECORDS);
    this.cloud = allocateCloud(this.capacity, options.shDegree);
    this.skipLeft = options.skip ?? 0;
    this.carry = new Uint8Array(options.recordSize);
    this.onProgress = options.count === undefined ? undefined : options.onProgress;
    this.progressStep = Math.min(PROGRESS_RECORDS, Math.ceil(this.expected / 16));
    this.nextProgress = this.progressStep;
  }

  /** Records decoded so far. */
  get decodedRecords(): number {
    return this.records;
  }

  /** The scene as decoded so far: its first decodedRecords splats are final (the arrays may be longer). */
  get decodedCloud(): SplatCloud {
    return this.cloud;
  }

  /** The records the stream expects (a header's count), or undefined when the stream decides. */
  get expectedRecords(): number | undefined {
    return Number.isFinite(this.expected) ? this.expected : undefined;
  }

  /** Bytes of a record that began but has not been completed. */
  protected get partialBytes(): number {
    return this.carryLength;
  }

  /** True once every expected record has been decoded (never for a stream without a count). */
  get complete(): boolean {
    return this.records >= this.expected;
  }

  /** Bytes that arrived after the expected records. */
  get trailingBytes(): number {
    return this.trailing;
  }

  /**
   * True when the stream has all it needs and the rest of the file may be
   * left unread (never, unless a decoder says otherwise).
   */
  get enough(): boolean {
    return false;
  }

  /**
   * The decoded scene, its values checked as validateSplatCloud checks them;
   * throws when the bytes that arrived do not make a whole file.
   */
  abstract finish(): SplatCloud;

  /** Decodes the whole records in `bytes` and keeps a trailing partial record for the next push. */
  push(bytes: Uint8Array): void {
    let at = 0;
    if (this.skipLeft > 0) {
      const skipped = Math.min(this.skipLeft, bytes.length);
      this.skipLeft -= skipped;
      at = skipped;
    }
    if (at >= bytes.length) return;
    if (this.records >= this.expected) {
      this.trailing += bytes.length - at;
      return;
    }
    const size = this.recordSize;
    if (this.carryLength > 0) {
      const take = Math.min(size - this.carryLength, bytes.length - at);
      this.carry.set(bytes.subarray(at, at + take), this.carryLength);
      this.carryLength += take;
      at += take;
      if (this.carryLength < size) return;
      this.carryLength = 0;
      this.decodeAligned(this.carry, 0, 1);
    }
    let records = Math.min(Math.floor((bytes.length - at) / size), this.expected - this.records);
    const perBlock = Math.max(1, Math.floor(BLOCK_BYTES / size));
    while (records > 0) {
      const block = Math.min(records, perBlock);
      this.decodeAligned(bytes, at, block);
      at += block * size;
      records -= block;
    }
    if (at < bytes.length) {
      if (this.records < this.expected) {
        this.carry.set(bytes.subarray(at), 0);
        this.carryLength = bytes.length - at;
      } else {
        this.trailing += bytes.length - at;
      }
    }
  }

  /**
   * Decodes `records` records from `block` (4-byte aligned, records * size
   * bytes) into this.cloud, from index this.records on (the arrays have room).
   */
  protected abstract decodeBlock(block: Uint8Array, records: number): void;

  /** The arrays trimmed to the records decoded (a copy only when they grew past them). */
  protected trimmedCloud(): SplatCloud {
    if (this.capacity !== this.records) {
      this.cloud = resizeSplatCloud(this.cloud, this.records);
      this.capacity = this.records;
    }
    return this.cloud;
  }

  private decodeAligned(bytes: Uint8Array, at: number, records: number): void {
    const total = this.records + records;
    if (total > this.limits.maxSplats[this.shDegree]) checkSplatCount(total, this.shDegree, this.limits, 'The file holds at least');
    this.reserve(total);
    const length = records * this.recordSize;
    let block = bytes.subarray(at, at + length);
    if (block.byteOffset % 4 !== 0) {
      if (this.scratch.length < length) this.scratch = new Uint8Array(Math.max(length, BLOCK_BYTES));
      this.scratch.set(block);
      block = this.scratch.subarray(0, length);
    }
    this.decodeBlock(block, records);
    this.records += records;
    // The last records are reported by the decoder's finish, once checked.
    if (this.onProgress && this.records >= this.nextProgress && this.records < this.expected) {
      this.onProgress(this.records / this.expected);
      while (this.nextProgress <= this.records) this.nextProgress += this.progressStep;
    }
  }

  /**
   * Grows the arrays by doubling (up to the expected count, and never past
   * what the renderer can hold) when the count was not allocated at once.
   */
  private reserve(records: number): void {
    if (records <= this.capacity) return;
    const most = Math.min(this.expected, this.limits.maxSplats[this.shDegree]);
    let capacity = Math.max(1, this.capacity);
    while (capacity < records) capacity = Math.min(most, capacity * 2);
    this.cloud = resizeSplatCloud(this.cloud, capacity);
    this.capacity = capacity;
  }
}

/** allocateSplatCloud, with a failed allocation (a size the memory cannot take) said in words. */
function allocateCloud(count: number, shDegree: ShDegree): SplatCloud {
  try {
    return allocateSplatCloud(count, shDegree);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new SplatLimitError(
      `Could not allocate memory for ${count.toLocaleString('en-US')} splats of SH degree ${shDegree}: ${error.message}`,
    );
  }
}

/** A copy of `cloud` with room for `count` splats: the first min(count, cloud.count) kept, the rest zero. */
function resizeSplatCloud(cloud: SplatCloud, count: number): SplatCloud {
  const resized = allocateCloud(count, cloud.shDegree);
  const keep = Math.min(count, cloud.count);
  const perSplat = (array: Float32Array) => array.length / Math.max(1, cloud.count);
  for (const key of ['positions', 'scales', 'rotations', 'opacities', 'dc', 'sh'] as const) {
    const width = cloud.count > 0 ? perSplat(cloud[key]) : 0;
    resized[key].set(cloud[key].subarray(0, keep * width));
  }
  return resized;
}
