/**
 * A tour: the views in order, from the first, each flown to and then
 * shown for a pause, until the last view's pause ends or the tour is
 * stopped (its signal aborted), a flight or a pause cut short. The flights
 * and the waiting are given, so the timing is the same in a page and in a
 * test. DOM-free.
 */
import type { TourTiming } from './views-file';

export interface TourSteps {
  /** Flies to the view at `index` over `seconds`; resolves on arrival, or when the flight is cut short. */
  fly(index: number, seconds: number): Promise<void>;
  /** Waits `seconds`; resolves early when `signal` aborts. */
  wait(seconds: number, signal: AbortSignal): Promise<void>;
}

/** Plays `count` views; 'ended' after the last view's pause, 'stopped' when `signal` aborted first. */
export async function playTour(count: number, timing: TourTiming, steps: TourSteps, signal: AbortSignal): Promise<'ended' | 'stopped'> {
  for (let index = 0; index < count; index++) {
    if (signal.aborted) return 'stopped';
    await steps.fly(index, timing.flightSeconds);
    if (signal.aborted) return 'stopped';
    await steps.wait(timing.pauseSeconds, signal);
  }
  return signal.aborted ? 'stopped' : 'ended';
}

/** A wait of `seconds` that ends early when `signal` aborts (setTimeout: a page or Node). */
export function abortableWait(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    if (signal.aborted) return done();
    const timer = setTimeout(finish, seconds * 1000);
    signal.addEventListener('abort', finish, { once: true });
    function finish(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      done();
    }
  });
}
