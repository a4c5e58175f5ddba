/**
 * Setup of every Node test file: a test fails when a WebGPU device raised
 * an uncaptured error during it (src/gpu/uncaptured-errors.ts). Dawn
 * delivers them as events, so the check lets pending events run first:
 * the Dawn polls already scheduled (every 1 ms: dawn-polling.mjs), then
 * what they queued.
 */
import { afterEach, expect } from 'vitest';
import { takeUncapturedErrors } from '../../src/gpu/uncaptured-errors';
import { afterDawnPolls } from '../../src/gpu/dawn-polling.mjs';

afterEach(async () => {
  await afterDawnPolls();
  await new Promise((resolve) => setImmediate(resolve));
  expect(takeUncapturedErrors(), 'uncaptured WebGPU errors').toEqual([]);
});
