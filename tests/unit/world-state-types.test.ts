/**
 * A world's figures are written in two places on purpose: the session's
 * own (src/app/world/world-session-types.ts) and the package's public type
 * (src/lib/public-types.ts), documented for other people's pages. They
 * must stay the same shape: this file does not type-check (and `npm test`
 * fails at its type check) where a field is in one and not the other.
 */
import { expect, test } from 'vitest';
import type { WorldState as SessionWorldState } from '../../src/app/world/world-session-types';
import type { WorldState as PublicWorldState } from '../../src/lib/public-types';

// Exact: an optional field in one and not the other counts too (mutual assignability would let it pass).
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;

test("the session's world figures and the package's public WorldState are the same shape", () => {
  const same: Same<SessionWorldState, PublicWorldState> = true;
  expect(same).toBe(true);
});
