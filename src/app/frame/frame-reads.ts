/**
 * What the frame engine reads back of its frames, once the GPU has run
 * them: the passes' GPU times (not every frame: a read is pending over the
 * next frames; auto's renderer and order measures learn which renderer
 * and order drew the frame it belongs to), a heat map view's counts, and what the painter
 * learnt (a tile frame that outgrew its buffers grows them so). A read that
 * fails (the device lost) teaches nothing. DOM-free.
 */
import type { SplatFrame, FrameTimings, FrameView } from './splat-frame';
import type { MeasuredFrame, RendererPolicy } from './renderer-policy';
import type { MeasuredOrderFrame, PixelOrderPolicy } from './pixel-order-policy';
import type { DifferenceMeasure } from '../../render/splat-resolve';
import type { PaintStatistics } from '../../render/painter';
import { isHeatMap } from './frame-settings';

/** What a frame's reads found: null where that frame did not time, count or leave anything to read. */
export interface FrameResults {
  timings: FrameTimings | null;
  difference: DifferenceMeasure | null;
  painted: PaintStatistics | null;
}

export class FrameReads {
  /** What a heat map view counted last (null before one is first shown), and which view that was. */
  difference: DifferenceMeasure | null = null;
  differenceView: FrameView = 'picture';
  /** Called with each frame's GPU pass times that could be read (not every frame). */
  onTimings: (times: FrameTimings) => void = () => {};
  /** Called with each count of a heat map view as soon as it is read, and the view it counted. */
  onDifference: (m: DifferenceMeasure, view: FrameView) => void = () => {};
  private timingPending = false;
  private differenceReading = false;
  /** The view whose count is being read. */
  private countingView: FrameView = 'picture';
  /** The reads of the last frame (null: it did not time, count or leave statistics). */
  private lastTimings: Promise<FrameTimings> | null = null;
  private lastDifference: Promise<DifferenceMeasure> | null = null;
  private lastPainted: Promise<PaintStatistics> | null = null;
  /** The frame whose GPU times are being read. */
  private readonly timedFrame: MeasuredFrame = { way: 'quads', run: -1, draw: 0 };
  private readonly timedOrder: MeasuredOrderFrame = { way: 'centre-depth', run: -1, draw: 0 };

  constructor(
    private readonly frame: SplatFrame,
    private readonly renderers: RendererPolicy,
    private readonly orders: PixelOrderPolicy,
  ) {}

  /** Starts the reads of the frame just submitted, which showed `view`. */
  afterSubmit(view: FrameView): void {
    const frame = this.frame;
    this.lastDifference = null;
    if (isHeatMap(view) && !this.differenceReading) {
      const reading = frame.readDifference();
      if (reading) {
        this.differenceReading = true;
        this.countingView = view;
        this.lastDifference = reading;
        reading.then(this.differenceRead, this.differenceFailed);
      }
    }
    this.lastPainted = frame.readPainted();
    this.lastPainted?.catch(ignoreFailedRead);
    this.lastTimings = null;
    if (!this.timingPending && frame.timer.enabled) {
      this.timingPending = true;
      this.renderers.describeFrame(this.timedFrame);
      this.orders.describeFrame(this.timedOrder);
      this.lastTimings = frame.readTimings();
      this.lastTimings.then(this.timingsRead, this.timingsFailed);
    }
  }

  /** The last frame's results once the GPU has run it: for callers that draw one frame and wait for it (the render command, the benchmarks). */
  async last(): Promise<FrameResults> {
    const [timings, difference, painted] = await Promise.all([this.lastTimings, this.lastDifference, this.lastPainted]);
    return { timings: timings ?? null, difference: difference ?? null, painted: painted ?? null };
  }

  private readonly differenceRead = (m: DifferenceMeasure): void => {
    this.differenceReading = false;
    this.difference = m;
    this.differenceView = this.countingView;
    this.onDifference(m, this.countingView);
  };

  private readonly differenceFailed = (): void => {
    this.differenceReading = false;
  };

  private readonly timingsRead = (times: FrameTimings): void => {
    this.timingPending = false;
    this.renderers.record(this.timedFrame, times.render);
    // The whole frame for the order: the projector writes the per-pixel order's depths, the raster runs its queue.
    this.orders.record(this.timedOrder, times.render === null ? null : (times.project ?? 0) + (times.sort ?? 0) + times.render);
    this.onTimings(times);
  };

  private readonly timingsFailed = (): void => {
    this.timingPending = false;
  };
}

/** A read that failed (the device lost): nothing to learn from it. */
function ignoreFailedRead(): void {}
