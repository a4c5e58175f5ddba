/**
 * When a world says which chunks failed (src/app/world/world-failures.ts):
 * failures that come together are said in one message, each chunk once,
 * as soon as no read is in flight, or FAILURES_QUIET_MS after the latest
 * where one stalls; nothing after the world is closed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAILURES_QUIET_MS, FailureNotices } from '../../src/app/world/world-failures';

function failing() {
  const failed: string[] = [];
  let inFlight = 0;
  const said: (readonly string[])[] = [];
  const notices = new FailureNotices(() => failed, () => inFlight, (news) => said.push(news));
  return {
    notices,
    said,
    fail: (name: string) => {
      failed.push(name);
      notices.chunkFailed();
    },
    /** A failure listed ahead of those before it (the world's environment heads its list). */
    failFirst: (name: string) => {
      failed.unshift(name);
      notices.chunkFailed();
    },
    setInFlight: (n: number) => (inFlight = n),
  };
}

describe('the failures a world says', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('says a failure listed ahead of those already said, and none of them again', async () => {
    const { said, fail, failFirst } = failing();
    fail('chunk 1_0/meta.json: HTTP 404');
    await vi.advanceTimersByTimeAsync(0);
    failFirst('environment env/meta.json: HTTP 500');
    await vi.advanceTimersByTimeAsync(0);
    expect(said).toEqual([['chunk 1_0/meta.json: HTTP 404'], ['environment env/meta.json: HTTP 500']]);
  });

  it('says chunks that fail while others are read together, once the last read has ended', async () => {
    const { notices, said, fail, setInFlight } = failing();
    setInFlight(3);
    fail('chunk 1_0/meta.json: HTTP 404');
    setInFlight(2);
    fail('chunk 1_1/meta.json: HTTP 404');
    await vi.advanceTimersByTimeAsync(FAILURES_QUIET_MS / 2);
    expect(said).toEqual([]);
    setInFlight(0);
    notices.readEnded();
    await vi.advanceTimersByTimeAsync(0);
    expect(said).toEqual([['chunk 1_0/meta.json: HTTP 404', 'chunk 1_1/meta.json: HTTP 404']]);
    // Said once: a later read ending, or the quiet time passing, says nothing more.
    notices.readEnded();
    await vi.advanceTimersByTimeAsync(2 * FAILURES_QUIET_MS);
    expect(said).toHaveLength(1);
    // A later failure is said on its own.
    fail('chunk 0_3/meta.json: not a SOG chunk');
    await vi.advanceTimersByTimeAsync(0);
    expect(said).toEqual([['chunk 1_0/meta.json: HTTP 404', 'chunk 1_1/meta.json: HTTP 404'], ['chunk 0_3/meta.json: not a SOG chunk']]);
  });

  it('does not wait for a read that stalls: says them once none has failed for the quiet time', async () => {
    const { said, fail, setInFlight } = failing();
    setInFlight(1);
    fail('chunk 1_0/meta.json: HTTP 404');
    await vi.advanceTimersByTimeAsync(FAILURES_QUIET_MS - 10);
    fail('chunk 1_1/meta.json: HTTP 404');
    await vi.advanceTimersByTimeAsync(FAILURES_QUIET_MS - 10);
    expect(said).toEqual([]);
    await vi.advanceTimersByTimeAsync(20);
    expect(said).toEqual([['chunk 1_0/meta.json: HTTP 404', 'chunk 1_1/meta.json: HTTP 404']]);
  });

  it('says nothing once the world is closed', async () => {
    const { notices, said, fail, setInFlight } = failing();
    setInFlight(1);
    fail('chunk 1_0/meta.json: HTTP 404');
    notices.close();
    setInFlight(0);
    notices.readEnded();
    await vi.advanceTimersByTimeAsync(2 * FAILURES_QUIET_MS);
    expect(said).toEqual([]);
  });
});
