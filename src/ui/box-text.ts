/**
 * The box of the panel's "save scene as" as its row shows it: six numbers
 * "minx, miny, minz, maxx, maxy, maxz" in scene coordinates (parseBox
 * reads it back). DOM-free.
 */
import type { Bounds } from '../lib/index';

/** A box as the panel writes it: four significant digits a number. */
export function boxText({ min, max }: Bounds): string {
  return [...min, ...max].map((v) => Number(v.toPrecision(4))).join(', ');
}
