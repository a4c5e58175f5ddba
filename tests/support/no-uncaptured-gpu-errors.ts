/**
 * Setup of every Node test file: a test fails when a WebGPU device raised
 * an uncaptured error during it (src/gpu/uncaptured-errors.ts). Dawn
 * delivers them as events, so the check lets pending events run first.
 */
import { afterEach, expect } from 'vitest';
import { takeUncapturedErrors } from '../../src/gpu/uncaptured-errors';

afterEach(async () => {
  await new Promise((resolve) => setImmediate(resolve));
  expect(takeUncapturedErrors(), 'uncaptured WebGPU errors').toEqual([]);
});
