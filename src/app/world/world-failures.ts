/**
 * When a world says which of its chunks failed: together, once each. The
 * failures not said yet are said once no read is in flight, or once none
 * has failed for FAILURES_QUIET_MS (a read that stalls is in flight for a
 * minute, CHUNK_TIMEOUT_MS, and must not hold the others' message back).
 * DOM-free.
 */

/**
 * How long after the latest failure the failures not yet said are said,
 * where reads are still in flight: 1 s. The reads of one choice (four in
 * flight, each decoding in 0.2-0.6 s) that fail together land within
 * that, and are said in one message.
 */
export const FAILURES_QUIET_MS = 1000;

export class FailureNotices {
  /** The failures said so far, by name: a failure is said once, wherever it comes in the list. */
  private readonly said = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  /**
   * `failed`: every failure so far, each named once; `inFlight`: the reads in flight; `say`: called with those not
   * said before.
   */
  constructor(
    private readonly failed: () => readonly string[],
    private readonly inFlight: () => number,
    private readonly say: (news: readonly string[]) => void,
  ) {}

  /** A chunk failed (after the stream started what follows it). */
  chunkFailed(): void {
    queueMicrotask(this.sayIfIdle);
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.sayNews(), FAILURES_QUIET_MS);
  }

  /** A read ended otherwise: where it was the last in flight, what failed before it is said. */
  readEnded(): void {
    if (this.timer !== null) queueMicrotask(this.sayIfIdle);
  }

  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
  }

  private readonly sayIfIdle = (): void => {
    if (this.inFlight() === 0) this.sayNews();
  };

  private sayNews(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.closed) return;
    const news = this.failed().filter((name) => !this.said.has(name));
    if (news.length === 0) return;
    for (const name of news) this.said.add(name);
    this.say(news);
  }
}
