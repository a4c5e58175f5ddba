/**
 * The candidate budget's policy (src/render/tiles/tile-pairs.ts): a GPU's
 * or a software adapter's, never under a window of tiles, never past the
 * pairs the device sorts. tests/gpu/tile-budget.test.ts draws with it.
 */
import { expect, test } from 'vitest';
import { candidateBudget, GPU_CANDIDATE_BUDGET, SOFTWARE_CANDIDATE_BUDGET } from '../../src/render/tiles/tile-pairs';

test("the budget is a GPU's or a software adapter's, not under a window of tiles, never past the device's limit", () => {
  expect(candidateBudget(2 ** 29, false, 8160)).toBe(GPU_CANDIDATE_BUDGET);
  expect(candidateBudget(2 ** 27, true, 8160)).toBe(SOFTWARE_CANDIDATE_BUDGET);
  expect(candidateBudget(2 ** 27, true, 2 ** 22)).toBe(2 ** 22);
  expect(candidateBudget(2 ** 25, false, 8160)).toBe(2 ** 25);
  expect(candidateBudget(100, false, 12)).toBe(100);
  expect(candidateBudget(100, true, 32400)).toBe(100);
});

test('a budget asked for replaces the adapter\'s, still within the limit and never under a window of tiles', () => {
  expect(candidateBudget(2 ** 29, false, 8160, Infinity)).toBe(2 ** 29);
  expect(candidateBudget(2 ** 27, true, 8160, 2 ** 24)).toBe(2 ** 24);
  expect(candidateBudget(2 ** 29, false, 32400, 1000)).toBe(32400);
});
