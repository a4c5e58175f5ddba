/**
 * The part of the window the scene is framed in: the largest rectangle that
 * no overlay (the settings panel or sheet, the stats panels and chart)
 * covers. DOM-free: the page measures the overlays and hands their boxes
 * in. "Largest" is for a framed scene: the camera fits the scene's bounding
 * sphere, whose picture is a circle, so what counts is the rectangle's
 * shorter side, then its area.
 */
/** A rectangle of the window, CSS pixels from its top left corner. */
export interface FreeRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The largest rectangle of a width × height window that none of `covered` overlaps (all CSS pixels). */
export function largestFreeRect(width: number, height: number, covered: readonly FreeRect[]): FreeRect {
  const boxes = covered.filter((r) => r.width > 0 && r.height > 0 && r.x < width && r.y < height && r.x + r.width > 0 && r.y + r.height > 0);
  // Every side of a largest free rectangle lies on the window's edge or on an overlay's.
  const lefts = [0, ...boxes.map((r) => r.x + r.width)].filter((x) => x < width);
  const rights = [width, ...boxes.map((r) => r.x)].filter((x) => x > 0);
  const tops = [0, ...boxes.map((r) => r.y + r.height)].filter((y) => y < height);
  const bottoms = [height, ...boxes.map((r) => r.y)].filter((y) => y > 0);
  let best: FreeRect = { x: 0, y: 0, width, height };
  let bestScore = boxes.length === 0 ? Infinity : -1;
  for (const left of lefts) {
    for (const right of rights) {
      if (right <= left) continue;
      for (const top of tops) {
        for (const bottom of bottoms) {
          if (bottom <= top) continue;
          const w = right - left, h = bottom - top;
          // Shorter side first, area to break ties (a comparable score: both in pixels, area scaled below one pixel).
          const score = Math.min(w, h) + (w * h) / (1 + width * height);
          if (score <= bestScore) continue;
          if (boxes.some((r) => r.x < right && r.x + r.width > left && r.y < bottom && r.y + r.height > top)) continue;
          best = { x: left, y: top, width: w, height: h };
          bestScore = score;
        }
      }
    }
  }
  return best;
}
