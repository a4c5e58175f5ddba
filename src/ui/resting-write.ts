/**
 * A write that follows something changing, done once the change rests:
 * the page's address following the view (view-sharing.ts), where each
 * write costs (history.replaceState was the largest cost of the page's own
 * script while a world streamed: 42 ms over a 24 s path, 16 calls, in
 * headless Chromium on SwiftShader). Resting in time alone (a timer put
 * off by each change) is not enough: where frames come further apart than
 * the timer (a slow GPU, software WebGPU), every frame of a flight wrote.
 * So a frame drawn without a change, REST_MS after the last one, writes;
 * where no frame is drawn (the canvas out of sight), a timer writes once
 * the change has rested IDLE_MS. DOM-free: the clock and timers are given.
 */
/** How long a change must rest before a still frame writes it. */
export const REST_MS = 250;
/** Where no frame is drawn, how long a change rests before a timer writes it. */
export const IDLE_MS = 2000;

export interface RestingClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

const PAGE_CLOCK: RestingClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

export class RestingWrite {
  private timer: unknown = null;
  /** The write is behind the change. */
  private due = false;
  private changedAt = 0;
  /** Something changed since the last frame drawn. */
  private changedSinceFrame = false;

  constructor(private readonly write: () => void, private readonly clock: RestingClock = PAGE_CLOCK) {}

  /** Call when it changed: no timer a change, one waits for the case where no frame comes. */
  changed(): void {
    this.due = true;
    this.changedAt = this.clock.now();
    this.changedSinceFrame = true;
    this.timer ??= this.clock.setTimeout(this.idle, IDLE_MS);
  }

  /** Call after each frame drawn (`now`: the clock's time). */
  frameDrawn(now: number): void {
    const moved = this.changedSinceFrame;
    this.changedSinceFrame = false;
    if (this.due && !moved && now - this.changedAt >= REST_MS) this.flush();
  }

  /** Stops following: a write still due is dropped. */
  dispose(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.due = false;
  }

  private readonly idle = (): void => {
    this.timer = null;
    if (!this.due) return;
    const rested = this.clock.now() - this.changedAt;
    if (rested >= IDLE_MS) this.flush();
    else this.timer = this.clock.setTimeout(this.idle, IDLE_MS - rested);
  };

  private flush(): void {
    this.due = false;
    this.write();
  }
}
