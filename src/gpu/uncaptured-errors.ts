/**
 * The uncaptured WebGPU errors of the Node devices (node-gpu.ts), kept so
 * that the tests can fail on them: a command buffer made invalid by one is
 * dropped at submit, and the frame it held is never drawn, silently.
 */
const errors: string[] = [];

export function recordUncapturedError(message: string): void {
  errors.push(message);
}

/** The errors recorded since the last call, cleared. */
export function takeUncapturedErrors(): string[] {
  return errors.splice(0);
}
