/**
 * Dawn's polling (src/gpu/dawn-polling.mjs, installed in every Node process
 * the tests run WebGPU in): native callbacks handed to setImmediate run at
 * the next poll, in order, with their arguments, all on one timer that is
 * made once (again when its period is set); afterDawnPolls waits for those
 * queued before it; JavaScript's own setImmediate is untouched. Bound functions stand in for dawn.node's
 * callbacks: they print as native code, as its do.
 */
import { describe, expect, it } from 'vitest';
import { afterDawnPolls, setDawnPollMs } from '../../src/gpu/dawn-polling.mjs';

const native = <A extends unknown[]>(f: (...args: A) => void): ((...args: A) => void) => f.bind(null);

describe("Dawn's polling", () => {
  it('runs native callbacks at the next poll, in order, with their arguments; afterDawnPolls waits for them', async () => {
    const ran: string[] = [];
    setImmediate(native(() => ran.push('a')));
    setImmediate(native((x: number, y: string) => ran.push(`b ${x} ${y}`)), 1, 'two');
    expect(ran).toEqual([]);
    await afterDawnPolls();
    expect(ran).toEqual(['a', 'b 1 two']);
  });

  it('keeps polling while callbacks queue more from inside a poll, as Dawn does while work is pending', async () => {
    let polls = 0;
    const again = native(() => {
      if (++polls < 20) setImmediate(again);
    });
    setImmediate(again);
    await expect.poll(() => polls, { interval: 5, timeout: 5000 }).toBe(20);
    await afterDawnPolls();
  });

  it('puts every native callback on the same timer, made once', () => {
    const first = setImmediate(native(() => {}));
    const second = setImmediate(native(() => {}));
    expect(second).toBe(first);
  });

  it('polls at the period set, from the next poll on, and refuses one under 1 ms', async () => {
    try {
      // Set while a poll is armed: it takes effect from the next one.
      setImmediate(native(() => {}));
      setDawnPollMs(6);
      await afterDawnPolls();
      const started = performance.now();
      setImmediate(native(() => {}));
      await afterDawnPolls();
      // A lower bound only: a slower machine polls later, never sooner.
      expect(performance.now() - started).toBeGreaterThanOrEqual(5);
      expect(() => setDawnPollMs(0.5)).toThrow(/at least 1 ms/);
    } finally {
      setDawnPollMs(1);
    }
  });

  it("leaves JavaScript's own setImmediate as it is", async () => {
    const order: string[] = [];
    const immediate = setImmediate(() => order.push('immediate'));
    expect(immediate.constructor.name).toBe('Immediate');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(order).toEqual(['immediate']);
  });
});
