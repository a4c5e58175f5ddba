/**
 * Which of a set of depth ranges overlap no other (bench/depth-overlap.ts):
 * a splat whose range (centre depth ± reach) is alone keeps its
 * centre-depth place at every pixel of the per-pixel order.
 */

/** 1 for each range [low[i], high[i]] that shares no point with any other range, else 0 (ranges touching at an end overlap). */
export function rangesAlone(low: ArrayLike<number>, high: ArrayLike<number>): Uint8Array {
  const n = low.length;
  const byLow = Array.from({ length: n }, (_, i) => i).sort((a, b) => low[a]! - low[b]!);
  const alone = new Uint8Array(n);
  let farthest = -Infinity;  // the highest end among the ranges before, by low end
  for (let r = 0; r < n; r++) {
    const i = byLow[r]!;
    const nextLow = r + 1 < n ? low[byLow[r + 1]!]! : Infinity;
    alone[i] = farthest < low[i]! && high[i]! < nextLow ? 1 : 0;
    farthest = Math.max(farthest, high[i]!);
  }
  return alone;
}
