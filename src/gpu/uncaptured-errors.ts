/**
 * The uncaptured WebGPU errors of the Node devices (node-gpu.ts), kept so
 * that the tests can fail on them: a command buffer made invalid by one is
 * dropped at submit, and the frame it held is never drawn, silently.
 */
const errors: string[] = [];
/** Kept at most (a long-running tool that nobody asks must not grow without bound); the rest are counted. */
const KEPT = 100;
let dropped = 0;

export function recordUncapturedError(message: string): void {
  if (errors.length < KEPT) errors.push(message);
  else dropped++;
}

/** The errors recorded since the last call (past KEPT of them, a line saying how many more), cleared. */
export function takeUncapturedErrors(): string[] {
  const taken = errors.splice(0);
  if (dropped > 0) taken.push(`and ${dropped} more`);
  dropped = 0;
  return taken;
}
