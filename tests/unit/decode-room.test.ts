/**
 * The room of decoded bytes that a world's chunks share while they decode
 * (src/io/decode-room.ts): fake chunks declaring sizes take it, hold it a
 * while and give it back; what is taken never passes the room, every
 * chunk is decoded in the end, in the order asked; a chunk larger than the
 * whole room is refused by name, and one cancelled while it waits leaves
 * the line.
 */
import { describe, expect, it } from 'vitest';
import { DecodeRoom, decodeRoomFor } from '../../src/io/decode-room';
import { DEFAULT_LOAD_LIMITS, SplatLimitError } from '../../src/io/load-limits';
import { sogDecodedBytes } from '../../src/io/sog/decode';
import { random as seededRandom } from '../support/up-scenes';

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('the room of decoded bytes', () => {
  it('keeps what chunks decoding at once take within the room, and lets every one decode', async () => {
    const random = seededRandom(45);
    const room = new DecodeRoom(1000);
    let peak = 0;
    let holding = 0;
    let mostHolding = 0;
    const order: number[] = [];
    // 40 chunks of 50 to 1,000 bytes, each asked for at once, holding the room 0 to 4 ticks.
    const chunks = Array.from({ length: 40 }, (_, i) => ({ i, bytes: 50 + Math.floor(random() * 951), ticks: Math.floor(random() * 5) }));
    await Promise.all(chunks.map(async ({ i, bytes, ticks }) => {
      const giveBack = await room.take(bytes);
      order.push(i);
      peak = Math.max(peak, room.inUse);
      mostHolding = Math.max(mostHolding, ++holding);
      for (let t = 0; t < ticks; t++) await tick();
      holding--;
      giveBack();
      giveBack(); // given back once, however often
    }));
    expect(order).toEqual(chunks.map((c) => c.i));
    expect(peak).toBeLessThanOrEqual(1000);
    // Side by side where they fit, not one at a time.
    expect(mostHolding).toBeGreaterThan(2);
    expect(room.inUse).toBe(0);
  });

  it('makes a chunk wait until the room is free, in the order asked: small ones do not pass a large one', async () => {
    const room = new DecodeRoom(100);
    const first = await room.take(60);
    const got: string[] = [];
    void room.take(80).then(() => got.push('large'));
    void room.take(10).then(() => got.push('small'));
    await tick();
    expect(got).toEqual([]);
    first();
    await tick();
    expect(got).toEqual(['large', 'small']);
    expect(room.inUse).toBe(90);
  });

  it('refuses a chunk larger than the whole room, saying how much it needs and how much there is', async () => {
    const room = new DecodeRoom(1_000_000);
    const refusal = room.take(1_000_001);
    await expect(refusal).rejects.toThrow(SplatLimitError);
    await expect(refusal).rejects.toThrow(
      'decoding it may hold 1,000,001 bytes (its images and splats): more than the 1,000,000 that the chunks decoding at once may hold together',
    );
    expect(room.inUse).toBe(0);
  });

  it('takes a chunk cancelled while it waits out of the line, and lets those behind it in', async () => {
    const room = new DecodeRoom(100);
    const first = await room.take(50);
    const cancel = new AbortController();
    const waiting = room.take(100, cancel.signal);
    let behind = false;
    void room.take(50).then(() => (behind = true));
    await tick();
    expect(behind).toBe(false);
    cancel.abort(new DOMException('no longer wanted', 'AbortError'));
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await tick();
    expect(behind).toBe(true);
    expect(room.inUse).toBe(100);
    first();
    expect(room.inUse).toBe(50);
  });

  it('is, for a world under the default limits, what one chunk at those limits may hold: 4.2M splats of SH degree 2', () => {
    const room = decodeRoomFor(DEFAULT_LOAD_LIMITS);
    expect(room).toBe(1_081_081_856);
    expect(room).toBe(sogDecodedBytes(4_194_304, 2));
    // Packed where they decode (the page's workers), at a pool of SH degree 3: 156 bytes more a splat.
    expect(decodeRoomFor(DEFAULT_LOAD_LIMITS, true)).toBe(room + 4_194_304 * 156);
    expect(decodeRoomFor(DEFAULT_LOAD_LIMITS, true)).toBe(1_735_393_280);
    // A chunk of the worlds built here (256K splats of SH degree 3) may hold 128 MB: eight fit side by side.
    expect(sogDecodedBytes(262_144, 3)).toBe(127_926_272);
  });
});
