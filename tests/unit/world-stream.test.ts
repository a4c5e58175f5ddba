import { describe, expect, it } from 'vitest';
import { CHUNK_TIMEOUT_MS, ChunkNoRoomError, ChunkStream, type ChunkSource, type StartTimer } from '../../src/app/world/world-stream';

/** A chunk source whose loads the test settles by hand; chunks are their file numbers, each 100 bytes held. */
function handSource() {
  const loads: { file: number; signal: AbortSignal; settled: boolean; settle: (ok: boolean) => void }[] = [];
  const released: number[] = [];
  const source: ChunkSource<number> = {
    load: (file, signal) =>
      new Promise((resolve, reject) => {
        loads.push({ file, signal, settled: false, settle: (ok) => (ok ? resolve({ chunk: file, bytes: 1000 + file }) : reject(new Error(`chunk ${file}: not a SOG scene`))) });
        signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })));
      }),
    heldBytes: () => 100,
    expectedHeld: () => 100,
    release: (chunk) => released.push(chunk),
  };
  const settle = async (file: number, ok = true) => {
    const load = loads.find((l) => l.file === file && !l.signal.aborted && !l.settled)!;
    load.settled = true;
    load.settle(ok);
    await new Promise((r) => setTimeout(r, 0));
  };
  return { source, loads, released, settle };
}

/** A clock the test moves by hand: each timer started, whether it was stopped, and how to fire it. */
function handClock() {
  const timers: { ms: number; fire: () => void; stopped: boolean }[] = [];
  const startTimer: StartTimer = (ms, fire) => {
    const timer = { ms, fire, stopped: false };
    timers.push(timer);
    return () => {
      timer.stopped = true;
    };
  };
  return { timers, startTimer };
}

describe('the chunk stream', () => {
  it('keeps at most maxInFlight fetches, started in the order asked, and starts the next as one arrives', async () => {
    const { source, loads, settle } = handSource();
    const stream = new ChunkStream(source, { maxInFlight: 3, memoryBudget: 1e9 });
    stream.update([5, 1, 7, 2, 9], []);
    expect(loads.map((l) => l.file)).toEqual([5, 1, 7]);
    await settle(1);
    expect(stream.isResident(1)).toBe(true);
    expect(stream.chunk(1)).toBe(1);
    expect(loads.map((l) => l.file)).toEqual([5, 1, 7, 2]);
    expect(stream.progress).toMatchObject({ chunksLoaded: 1, bytesLoaded: 1001, inFlight: 3, resident: 1, heldBytes: 100 });
  });

  it('cancels the fetches the camera no longer wants, and starts what it wants now', async () => {
    const { source, loads, settle } = handSource();
    const stream = new ChunkStream(source, { maxInFlight: 2, memoryBudget: 1e9 });
    stream.update([1, 2, 3], []);
    stream.update([4, 2], []);
    expect(loads.find((l) => l.file === 1)!.signal.aborted).toBe(true);
    expect(loads.find((l) => l.file === 2)!.signal.aborted).toBe(false);
    expect(loads.map((l) => l.file)).toEqual([1, 2, 4]);
    expect(stream.progress.cancelled).toBe(1);
    // A cancelled fetch is not a failure, and its file is fetched again when asked for again.
    await new Promise((r) => setTimeout(r, 0));
    expect(stream.progress.failed.size).toBe(0);
    await settle(2);
    stream.update([1], []);
    expect(loads.filter((l) => l.file === 1)).toHaveLength(2);
  });

  it('makes room before a fetch by evicting the least recently drawn chunks, never one drawn in the latest frame, and fetches them again when wanted', async () => {
    const { source, loads, released, settle } = handSource();
    const stream = new ChunkStream(source, { maxInFlight: 4, memoryBudget: 300 });
    stream.update([1, 2, 3], []);
    for (const f of [1, 2, 3]) await settle(f);
    stream.update([], [2]);
    stream.update([], [1, 3]); // 2 was drawn longest ago
    stream.update([4], [1, 3]);
    // The room for 4 is made as its fetch starts, not when it lands.
    expect(released).toEqual([2]);
    await settle(4);
    expect([1, 2, 3, 4].map((f) => stream.isResident(f))).toEqual([true, false, true, true]);
    expect(stream.progress).toMatchObject({ evicted: 1, resident: 3, heldBytes: 300 });
    // Everything resident was drawn in the latest frame: 2 waits for room rather than pass the budget.
    stream.update([2], [1, 3, 4]);
    expect(loads.filter((l) => l.file === 2)).toHaveLength(1);
    stream.update([2], [1, 3]);
    expect(loads.filter((l) => l.file === 2)).toHaveLength(2);
    expect(released).toEqual([2, 4]);
    await settle(2);
    expect(stream.progress.heldBytes).toBe(300);
  });

  it('between the budget and the limit, the most needed file comes in while all else is drawn, and what it replaces goes once no longer drawn', async () => {
    const { source, loads, released, settle } = handSource();
    const stream = new ChunkStream(source, { maxInFlight: 2, memoryBudget: 200, memoryLimit: 300 });
    stream.update([1, 2], []);
    await settle(1);
    await settle(2);
    // 1 and 2 are drawn (the finer levels standing in for 3); 3 is the most needed.
    stream.update([3, 4], [1, 2]);
    expect(loads.map((l) => l.file)).toEqual([1, 2, 3]);
    await settle(3);
    expect(stream.progress.heldBytes).toBe(300);
    // Past the limit nothing more starts, even the next most needed.
    expect(loads.map((l) => l.file)).toEqual([1, 2, 3]);
    // 3 now stands where 1 and 2 stood: the least recently drawn goes, back to the budget.
    stream.update([4], [3]);
    expect(released).toEqual([1, 2]);
    expect(loads.map((l) => l.file)).toEqual([1, 2, 3, 4]);
  });

  it('a chunk that found no room on arrival is not a failure: it is fetched again by a later update', async () => {
    let attempt = 0;
    const stream = new ChunkStream<number>(
      {
        load: async (file) => {
          if (attempt++ === 0) throw new ChunkNoRoomError('no free pages');
          return { chunk: file, bytes: 1 };
        },
        heldBytes: () => 1,
        expectedHeld: () => 1,
        release: () => {},
      },
      { maxInFlight: 1, memoryBudget: 10 },
    );
    stream.update([3], []);
    await new Promise((r) => setTimeout(r, 0));
    expect(stream.progress.failed.size).toBe(0);
    expect(stream.isResident(3)).toBe(false);
    stream.update([3], []);
    await new Promise((r) => setTimeout(r, 0));
    expect(stream.isResident(3)).toBe(true);
  });

  it('names a chunk that fails once, does not fetch it again, and goes on with the rest', async () => {
    const { source, loads, settle } = handSource();
    const stream = new ChunkStream(source, { maxInFlight: 1, memoryBudget: 1e9 });
    const failures: string[] = [];
    stream.onFail = (file, reason) => failures.push(`${file}: ${reason}`);
    stream.update([6, 7], []);
    await settle(6, false);
    expect(failures).toEqual(['6: chunk 6: not a SOG scene']);
    expect(loads.map((l) => l.file)).toEqual([6, 7]);
    stream.update([6, 7], []);
    expect(loads.filter((l) => l.file === 6)).toHaveLength(1);
    expect(stream.progress.failed.get(6)).toBe('chunk 6: not a SOG scene');
  });

  it('close cancels every fetch, releases every chunk and starts nothing after', async () => {
    const { source, loads, released, settle } = handSource();
    const stream = new ChunkStream(source, { maxInFlight: 2, memoryBudget: 1e9 });
    stream.update([1, 2], []);
    await settle(1);
    stream.close();
    expect(loads.find((l) => l.file === 2)!.signal.aborted).toBe(true);
    expect(released).toEqual([1]);
    expect(stream.progress).toMatchObject({ resident: 0, heldBytes: 0, inFlight: 0 });
    stream.update([3], []);
    expect(loads).toHaveLength(2);
  });

  it('a chunk whose fetch lands after it was cancelled is released, not kept', async () => {
    // A source that finishes what it started whatever the signal says.
    const finish: ((value: { chunk: number; bytes: number }) => void)[] = [];
    const released: number[] = [];
    const stream = new ChunkStream<number>({ load: () => new Promise((resolve) => finish.push(resolve)), heldBytes: () => 1, expectedHeld: () => 1, release: (c) => released.push(c) }, { maxInFlight: 2, memoryBudget: 10 });
    stream.update([8], []);
    stream.update([], []);
    finish[0]!({ chunk: 8, bytes: 5 });
    await new Promise((r) => setTimeout(r, 0));
    expect(released).toEqual([8]);
    expect(stream.isResident(8)).toBe(false);
    expect(stream.progress.chunksLoaded).toBe(0);
  });

  it('gives up a read that has not settled after its time, names it once and goes on; a read that settles, or is cancelled, stops its timer', async () => {
    const { source, loads, released, settle } = handSource();
    const { timers, startTimer } = handClock();
    const stream = new ChunkStream(source, { maxInFlight: 2, memoryBudget: 1e9, timeoutMs: 5000, startTimer });
    const failures: string[] = [];
    stream.onFail = (file, reason) => failures.push(`${file}: ${reason}`);
    stream.update([1, 2, 3, 4], []);
    expect(timers.map((t) => t.ms)).toEqual([5000, 5000]);
    await settle(1);
    expect(timers[0]!.stopped).toBe(true);
    // 2 stalls: its time runs out.
    timers[1]!.fire();
    expect(loads.find((l) => l.file === 2)!.signal.aborted).toBe(true);
    expect(failures).toEqual(['2: given up after 5 s: its read had not finished (a server or disk that stalls or trickles)']);
    expect(stream.progress).toMatchObject({ inFlight: 2 });
    expect(loads.map((l) => l.file)).toEqual([1, 2, 3, 4]);
    // Not asked for again, and its read rejecting now (cancelled) is no second failure.
    stream.update([2, 3, 4], []);
    expect(loads.filter((l) => l.file === 2)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(failures).toHaveLength(1);
    // A cancelled read's timer stops, as does every timer on close.
    stream.update([4], []);
    expect(timers[2]!.stopped).toBe(true);
    stream.close();
    expect(timers.every((t) => t.stopped)).toBe(true);
    expect(released).toEqual([1]);
  });

  it('a read that has ended stops its timer, and is not given up while it is placed, however long that takes', async () => {
    const { timers, startTimer } = handClock();
    let readEnded = () => {};
    let place = (_: number) => {};
    const source: ChunkSource<number> = {
      load: (_file, _signal, ended) => new Promise((resolve) => {
        readEnded = ended;
        place = (f) => resolve({ chunk: f, bytes: 1 });
      }),
      heldBytes: () => 100,
      expectedHeld: () => 100,
      release: () => {},
    };
    const stream = new ChunkStream(source, { maxInFlight: 1, memoryBudget: 1e9, timeoutMs: 5000, startTimer });
    const failures: string[] = [];
    stream.onFail = (file, reason) => failures.push(`${file}: ${reason}`);
    stream.update([3], []);
    readEnded();
    expect(timers[0]!.stopped).toBe(true);
    // Its pages wait for frames a hidden page does not draw: no timer runs while they do.
    expect(timers.filter((t) => !t.stopped)).toEqual([]);
    place(3);
    expect(failures).toEqual([]);
    await new Promise((r) => setTimeout(r, 0));
    expect(stream.isResident(3)).toBe(true);
  });

  it(`times reads out after ${CHUNK_TIMEOUT_MS / 1000} s unless told otherwise`, () => {
    const { timers, startTimer } = handClock();
    const stream = new ChunkStream(handSource().source, { maxInFlight: 1, memoryBudget: 1e9, startTimer });
    stream.update([1], []);
    expect(timers.map((t) => t.ms)).toEqual([CHUNK_TIMEOUT_MS]);
    stream.close();
  });
});
