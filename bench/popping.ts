/**
 * The popping measure: along a slow camera move, the pixels that jump
 * between consecutive frames by more than a threshold beyond what an
 * exactly ordered reference does between the same frames. The scene moves
 * on screen, so pixels change anyway; what the reference does not do is an
 * order's own jump: two splats swapping at once where their centres pass
 * each other's depth. Pictures are tightly packed RGBA8 of one size.
 */

/** A jump counts as a pop when it passes the reference's by more than this many 8-bit levels (16/255: plainly visible). */
export const POP_LEVELS = 16;

export interface PopCount {
  /** Pixels that popped, summed over every pair of consecutive frames. */
  pixels: number;
  /** The same per pair of consecutive frames (frames − 1 entries). */
  perStep: number[];
  /** pixels / (pairs × pixels a frame): the share of pixel steps that popped. */
  fraction: number;
  /**
   * Raw jumps: pixels whose own change between consecutive frames passes the
   * levels, whatever the reference does, summed over every pair. A
   * per-pixel order draws a seam where two splats' ray depths cross, and the
   * seam moves with the camera: those jumps are the reference's too, so
   * they are not pops, but a viewer sees them.
   */
  jumps: number;
  /** The reference's own raw jumps along the same frames. */
  referenceJumps: number;
}

/** The largest channel change of pixel p between two RGBA8 pictures, in levels. */
function jump(a: Uint8Array, b: Uint8Array, p: number): number {
  const at = 4 * p;
  return Math.max(Math.abs(a[at]! - b[at]!), Math.abs(a[at + 1]! - b[at + 1]!), Math.abs(a[at + 2]! - b[at + 2]!));
}

/**
 * Counts the pops of `frames` against `reference` (the same camera
 * positions, drawn in an exact per-pixel order): pixel p pops between
 * frames i − 1 and i when its jump there passes the reference's jump by
 * more than `levels`.
 */
export function countPops(frames: readonly Uint8Array[], reference: readonly Uint8Array[], levels = POP_LEVELS): PopCount {
  if (frames.length !== reference.length) throw new RangeError(`countPops: ${frames.length} frames against ${reference.length} reference frames`);
  if (frames.length < 2) throw new RangeError('countPops: a move needs at least two frames');
  const size = frames[0]!.length;
  for (const picture of [...frames, ...reference]) {
    if (picture.length !== size || size % 4 !== 0) throw new RangeError(`countPops: pictures of ${size} and ${picture.length} bytes`);
  }
  const pixelsPerFrame = size / 4;
  const perStep: number[] = [];
  let jumps = 0;
  let referenceJumps = 0;
  for (let i = 1; i < frames.length; i++) {
    const [a, b, ra, rb] = [frames[i - 1]!, frames[i]!, reference[i - 1]!, reference[i]!];
    let popped = 0;
    for (let p = 0; p < pixelsPerFrame; p++) {
      const own = jump(a, b, p);
      const exact = jump(ra, rb, p);
      if (own - exact > levels) popped++;
      if (own > levels) jumps++;
      if (exact > levels) referenceJumps++;
    }
    perStep.push(popped);
  }
  const pixels = perStep.reduce((sum, n) => sum + n, 0);
  return { pixels, perStep, fraction: pixels / (perStep.length * pixelsPerFrame), jumps, referenceJumps };
}
