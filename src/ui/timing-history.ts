/**
 * The timing chart's state, free of the DOM so that it can be tested in Node:
 * a ring of the last few hundred frames' pass times, and the chart's y-axis
 * scale, which rises at once for a new peak and eases down slowly.
 *
 * A pass that was not measured in a frame is stored as NaN, not 0: the chart
 * leaves it out of that frame's column rather than drawing a time nobody
 * measured (GPU timings are read back asynchronously, so most frames have
 * none; the CPU sort reports only when an order arrives).
 */

/** The stacked passes, bottom to top. */
export const PASSES = ['project', 'sort', 'render', 'cpu'] as const;
export type PassName = (typeof PASSES)[number];
export const PASS_COUNT = PASSES.length;

/** Pass times (ms) of the last `capacity` frames; preallocated, so pushing a frame allocates nothing. */
export class TimingHistory {
  /** Frame-major: PASS_COUNT values per frame, NaN where not measured. */
  private readonly times: Float64Array;
  /** Sum of each frame's measured passes (0 when none was measured). */
  private readonly totals: Float64Array;
  /** Slot of the next frame. */
  private head = 0;
  /** Frames pushed since the start (may exceed capacity). */
  count = 0;

  constructor(readonly capacity: number) {
    if (!(capacity >= 1) || !Number.isInteger(capacity)) throw new RangeError(`TimingHistory capacity must be a positive integer, got ${capacity}`);
    this.times = new Float64Array(capacity * PASS_COUNT).fill(NaN);
    this.totals = new Float64Array(capacity);
  }

  /** Frames held now: min(count, capacity). */
  get stored(): number {
    return Math.min(this.count, this.capacity);
  }

  /** Appends one frame; NaN (or a negative or non-finite value) marks a pass not measured. */
  push(project: number, sort: number, render: number, cpu: number): void {
    const base = this.head * PASS_COUNT;
    this.times[base] = clean(project);
    this.times[base + 1] = clean(sort);
    this.times[base + 2] = clean(render);
    this.times[base + 3] = clean(cpu);
    let total = 0;
    for (let p = 0; p < PASS_COUNT; p++) {
      const v = this.times[base + p]!;
      if (v === v) total += v;
    }
    this.totals[this.head] = total;
    this.head = (this.head + 1) % this.capacity;
    this.count++;
  }

  /** Pass `pass` (index into PASSES) of the frame `age` frames back (0: the newest); NaN when not measured or not kept. */
  get(age: number, pass: number): number {
    const slot = this.slot(age);
    return slot < 0 ? NaN : this.times[slot * PASS_COUNT + pass]!;
  }

  /** Sum of the measured passes of the frame `age` frames back; 0 when none or not kept. */
  total(age: number): number {
    const slot = this.slot(age);
    return slot < 0 ? 0 : this.totals[slot]!;
  }

  /** Largest frame total among the newest `frames` frames (0 when empty). */
  peak(frames: number): number {
    const n = Math.min(frames, this.stored);
    let max = 0;
    for (let age = 0; age < n; age++) max = Math.max(max, this.totals[this.slot(age)]!);
    return max;
  }

  private slot(age: number): number {
    if (age < 0 || age >= this.stored) return -1;
    return (this.head - 1 - age + 2 * this.capacity) % this.capacity;
  }
}

function clean(v: number): number {
  return Number.isFinite(v) && v >= 0 ? v : NaN;
}

/**
 * Mantissas of the scale's steps: a label such as "400 µs" or "1.5 ms" reads
 * at a glance, and neighbouring steps differ by at most 1.5×, so the tallest
 * column fills at least two thirds of the chart once the scale has settled.
 */
const STEPS = [1, 1.5, 2, 3, 4, 5, 6, 8] as const;

/** The smallest step (1, 1.5, 2, 3, 4, 5, 6, 8 × 10^k) ≥ ms. */
export function niceCeil(ms: number): number {
  if (!(ms > 0) || !Number.isFinite(ms)) return 0;
  let decade = 10 ** Math.floor(Math.log10(ms));
  // Float rounding (e.g. log10(1000) = 2.9999999999999996) must not skip a decade.
  if (decade * 10 <= ms) decade *= 10;
  for (const step of STEPS) {
    // Tolerance: 3e-3 * 1000 is 3.0000000000000004, which is the step 3 and not 4.
    const value = step * decade;
    if (value >= ms * (1 - 1e-9)) return roundToStep(value);
  }
  return roundToStep(10 * decade);
}

/** Strips binary noise from step × 10^k (0.30000000000000004 → 0.3). */
function roundToStep(v: number): number {
  return Number(v.toPrecision(6));
}

/**
 * The chart's y-axis maximum in ms. A new peak raises it at once (no column
 * is ever drawn clipped); once the peak has gone, it falls back exponentially
 * with time constant `easeMs`, measured in time rather than frames so that it
 * eases at the same pace at 10 and at 144 frames a second. The shown value
 * snaps to STEPS, so the picture is rescaled (redrawn) only when a step is
 * crossed, not every frame of the easing.
 */
export class ChartScale {
  /** The current axis maximum (ms), one of the steps; never below minMs. */
  max: number;
  private eased = 0;
  private last = NaN;

  constructor(
    /** Floor of the scale: with nothing measured, the chart still has an axis (50 µs). */
    readonly minMs = 0.05,
    readonly easeMs = 2000,
  ) {
    this.max = niceCeil(minMs);
  }

  /** Feeds the peak of the columns on screen at time `now` (ms); true when `max` changed. */
  update(peak: number, now: number): boolean {
    const dt = this.last === this.last ? Math.max(0, now - this.last) : 0;
    this.last = now;
    if (!(peak >= 0)) peak = 0;
    if (peak >= this.eased) this.eased = peak;
    else this.eased = peak + (this.eased - peak) * Math.exp(-dt / this.easeMs);
    // The exponential only approaches the peak: within 2% it has arrived, so
    // that a peak that is itself a step gets that step, not the one above.
    if (this.eased - peak <= 0.02 * peak) this.eased = peak;
    const next = niceCeil(Math.max(this.eased, this.minMs));
    if (next === this.max) return false;
    this.max = next;
    return true;
  }

  /** Back to the floor, as when nothing was measured yet. */
  reset(): void {
    this.eased = 0;
    this.last = NaN;
    this.max = niceCeil(this.minMs);
  }
}

/** A scale label: "50 µs", "1.5 ms", "2 s". */
export function formatMs(ms: number): string {
  if (ms < 1) return `${Number((ms * 1000).toPrecision(3))} µs`;
  if (ms < 1000) return `${Number(ms.toPrecision(3))} ms`;
  return `${Number((ms / 1000).toPrecision(3))} s`;
}
