/**
 * The page's address following the view (src/ui/resting-write.ts, used by
 * view-sharing.ts): written once the view rests, by a frame drawn without a
 * change, or by a timer where no frame comes; never once a frame along a
 * flight whose frames come further apart than the rest.
 */
import { describe, expect, test } from 'vitest';
import { IDLE_MS, REST_MS, RestingWrite, type RestingClock } from '../../src/ui/resting-write';

/** A clock the test moves: its time, and the timers due by then run as it passes them. */
function handClock() {
  let time = 0;
  const timers: { at: number; run: () => void; live: boolean }[] = [];
  const clock: RestingClock = {
    now: () => time,
    setTimeout: (run, ms) => {
      const timer = { at: time + ms, run, live: true };
      timers.push(timer);
      return timer;
    },
    clearTimeout: (timer) => void ((timer as { live: boolean }).live = false),
  };
  const advance = (ms: number) => {
    const end = time + ms;
    for (;;) {
      const next = timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      time = next.at;
      next.live = false;
      next.run();
    }
    time = end;
  };
  return { clock, advance, now: () => time };
}

/** A RestingWrite on a hand clock, counting its writes. */
function counted() {
  const hand = handClock();
  let writes = 0;
  const address = new RestingWrite(() => writes++, hand.clock);
  return { ...hand, address, writes: () => writes };
}

describe('the address written once the view rests', () => {
  test('a flight whose frames come 300 ms apart writes nothing until a frame draws the view still, then once', () => {
    const { advance, now, address, writes } = counted();
    for (let frame = 0; frame < 10; frame++) {
      address.changed();
      advance(300);
      address.frameDrawn(now());
    }
    // A timer put off by each change (the rule before) wrote at each of these frames: 300 ms passed its 250.
    expect(writes()).toBe(0);
    // The view stops: the next frame, which did not move it, writes; later ones do not write again.
    advance(16);
    address.frameDrawn(now());
    expect(writes()).toBe(1);
    for (let frame = 0; frame < 5; frame++) {
      advance(16);
      address.frameDrawn(now());
    }
    expect(writes()).toBe(1);
  });

  test('a still frame too soon after the change waits for one past the rest', () => {
    const { advance, now, address, writes } = counted();
    address.changed();
    advance(16);
    address.frameDrawn(now());
    advance(REST_MS - 100);
    address.frameDrawn(now());
    expect(writes()).toBe(0);
    advance(100);
    address.frameDrawn(now());
    expect(writes()).toBe(1);
  });

  test('where no frame is drawn, a timer writes once the change has rested, put off by later changes', () => {
    const { advance, address, writes } = counted();
    address.changed();
    advance(IDLE_MS / 2);
    address.changed();
    advance(IDLE_MS - 1);
    expect(writes()).toBe(0);
    advance(IDLE_MS);
    expect(writes()).toBe(1);
    advance(10 * IDLE_MS);
    expect(writes()).toBe(1);
  });

  test('dispose drops a write still due', () => {
    const { advance, now, address, writes } = counted();
    address.changed();
    address.dispose();
    advance(10 * IDLE_MS);
    address.frameDrawn(now());
    expect(writes()).toBe(0);
  });
});
