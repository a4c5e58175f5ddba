/**
 * The uncaptured WebGPU errors kept for the tests (src/gpu/uncaptured-errors.ts):
 * taken once and cleared, and kept to a bound, the rest counted, so that a
 * long-running Node tool whose device keeps failing does not grow without end.
 */
import { expect, test } from 'vitest';
import { recordUncapturedError, takeUncapturedErrors } from '../../src/gpu/uncaptured-errors';

test('errors are taken once; past 100 they are counted, not kept', () => {
  takeUncapturedErrors();
  recordUncapturedError('one');
  expect(takeUncapturedErrors()).toEqual(['one']);
  expect(takeUncapturedErrors()).toEqual([]);
  for (let i = 0; i < 105; i++) recordUncapturedError(`error ${i}`);
  const taken = takeUncapturedErrors();
  expect(taken).toHaveLength(101);
  expect(taken[99]).toBe('error 99');
  expect(taken[100]).toBe('and 5 more');
  expect(takeUncapturedErrors()).toEqual([]);
});
