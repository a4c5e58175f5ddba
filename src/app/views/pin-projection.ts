/**
 * Where a point of the scene shows on the canvas: projected with the
 * matrices of the frame last drawn (their lens shift included, so a pin
 * sits on the splats it marks), in CSS pixels from the canvas's top left.
 * DOM-free.
 */

/**
 * The point `p` on a canvas of `width` × `height` CSS pixels, by the
 * column-major `view` and `projection` matrices (WebGPU clip space), or
 * null where it is behind the camera.
 */
export function projectPoint(view: ArrayLike<number>, projection: ArrayLike<number>, p: readonly number[], width: number, height: number): { x: number; y: number; depth: number } | null {
  const eye = transform(view, [p[0]!, p[1]!, p[2]!, 1]);
  const clip = transform(projection, eye);
  const w = clip[3]!;
  if (!(w > 1e-9)) return null;
  return { x: ((clip[0]! / w + 1) / 2) * width, y: ((1 - clip[1]! / w) / 2) * height, depth: w };
}

function transform(m: ArrayLike<number>, v: readonly number[]): number[] {
  return [0, 1, 2, 3].map((row) => m[row]! * v[0]! + m[4 + row]! * v[1]! + m[8 + row]! * v[2]! + m[12 + row]! * v[3]!);
}
