/**
 * SH coefficients turned with their splat (src/io/sh-rotation.ts), checked
 * by brute force: the turned colour, evaluated with the renderer's basis as
 * the default scene's generator writes it (tests/support/default-scene.ts,
 * not the module's own), equals the original colour at the direction turned
 * back, at hundreds of directions, for random rotations and mirrors; and
 * the half turn between glTF's and the PLY scenes' axes gives the sign
 * table the SPZ and glTF readers use.
 */
import { describe, expect, it } from 'vitest';
import { rotateSh, shRotation } from '../../src/io/sh-rotation';
import { RUB_RDF_SH_SIGNS } from '../../src/io/spz/axes';
import { shBasis } from '../support/default-scene';
import { rng } from '../support/splat-files';

const random = rng(91);

/** A random rotation matrix (row-major), from a random unit quaternion; mirrored (every axis negated) when asked. */
function randomOrthogonal(mirror: boolean): number[] {
  const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
  const n = Math.hypot(...q);
  const [w, x, y, z] = q.map((v) => v / n) as [number, number, number, number];
  const m = [
    1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
  ];
  return mirror ? m.map((v) => -v) : m;
}

function randomDirection(): [number, number, number] {
  for (;;) {
    const d = [random() * 2 - 1, random() * 2 - 1, random() * 2 - 1];
    const n = Math.hypot(...d);
    if (n > 0.1 && n <= 1) return d.map((v) => v / n) as [number, number, number];
  }
}

/** One channel's colour (without the DC term) of 15 coefficients at direction d. */
function colour(coefficients: ArrayLike<number>, d: readonly number[]): number {
  const basis = new Float64Array(15);
  shBasis(basis, d[0]!, d[1]!, d[2]!);
  let sum = 0;
  for (let k = 0; k < 15; k++) sum += basis[k]! * coefficients[k]!;
  return sum;
}

describe('SH turned with their splat', () => {
  it.each([false, true])('give the original colour at the direction turned back (mirrored: %s), at 200 directions', (mirror) => {
    for (let trial = 0; trial < 20; trial++) {
      const q = randomOrthogonal(mirror);
      // Two splats, RGB each, 15 coefficients a channel: the cloud's layout.
      const sh = Float32Array.from({ length: 2 * 15 * 3 }, () => random() * 2 - 1);
      const turned = sh.slice();
      rotateSh(turned, 15, 0, 2, shRotation(q, 3));
      let worst = 0;
      for (let j = 0; j < 200; j++) {
        const d = randomDirection();
        const back = [0, 1, 2].map((c) => q[c]! * d[0] + q[3 + c]! * d[1] + q[6 + c]! * d[2]); // Qᵀ d
        for (let i = 0; i < 2; i++) {
          for (let c = 0; c < 3; c++) {
            const channel = (from: Float32Array) => Array.from({ length: 15 }, (_, k) => from[(i * 15 + k) * 3 + c]!);
            worst = Math.max(worst, Math.abs(colour(channel(turned), d) - colour(channel(sh), back)));
          }
        }
      }
      // The coefficients are stored as float32 again: their rounding, not the fit, bounds the error.
      expect(worst).toBeLessThan(1e-5);
    }
  });

  it('turns each degree on its own, and leaves degrees above the one asked for as they are', () => {
    const q = randomOrthogonal(false);
    const sh = Float32Array.from({ length: 15 * 3 }, () => random());
    const turned = sh.slice();
    rotateSh(turned, 15, 0, 1, shRotation(q, 1));
    expect([...turned.subarray(9)]).toEqual([...sh.subarray(9)]);
    expect([...turned.subarray(0, 9)]).not.toEqual([...sh.subarray(0, 9)]);
  });

  it('is the identity for no turn, and gives the sign table of the half turn between glTF\'s axes and the PLY scenes\'', () => {
    const identity = shRotation([1, 0, 0, 0, 1, 0, 0, 0, 1], 3);
    const halfTurnX = shRotation([1, 0, 0, 0, -1, 0, 0, 0, -1], 3);
    let k = 0;
    for (let l = 0; l < 3; l++) {
      const size = 2 * l + 3;
      for (let r = 0; r < size; r++, k++) {
        for (let c = 0; c < size; c++) {
          expect(identity[l]![r * size + c]).toBeCloseTo(r === c ? 1 : 0, 12);
          expect(halfTurnX[l]![r * size + c]).toBeCloseTo(r === c ? RUB_RDF_SH_SIGNS[k]! : 0, 12);
        }
      }
    }
  });
});
