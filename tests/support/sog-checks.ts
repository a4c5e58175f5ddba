/**
 * What the SOG tests (tests/unit/sog-*.test.ts) check decoded scenes with:
 * a file reader over written images, and how far apart two rotations are
 * against what SOG's byte-quantised quaternions allow.
 */

/** A reader of the named files, as parseSog takes it; a name not there is a failed read. */
export function readerOf(files: Map<string, Uint8Array> | Record<string, Uint8Array>): (name: string) => Promise<Uint8Array> {
  const map = files instanceof Map ? files : new Map(Object.entries(files));
  return (name) => {
    const bytes = map.get(name);
    return bytes ? Promise.resolve(bytes) : Promise.reject(new Error(`no file ${name}`));
  };
}

function normalised(q: Float32Array, i: number): number[] {
  const v = Array.from(q.subarray(i * 4, i * 4 + 4));
  const length = Math.hypot(...v) || 1;
  return v.map((c) => c / length);
}

/** 1 − |q·q'| of splat i's rotation in `a` and splat j's in `b`, both normalised. */
export function quatMismatch(a: Float32Array, b: Float32Array, i: number, j = i): number {
  const qa = normalised(a, i);
  const qb = normalised(b, j);
  let dot = 0;
  for (let c = 0; c < 4; c++) dot += qa[c]! * qb[c]!;
  return 1 - Math.abs(dot); // q and −q are the same rotation
}

/**
 * 1 − |q·q'| for a unit q and q' = (q + e)/|q + e| with |e| ≤ √12 δ: the part
 * of e across q, squared, over twice the squared length along q.
 */
export function rotationBound(delta: number): number {
  const e = Math.sqrt(12) * delta;
  return (e * e) / (2 * (1 - e) ** 2);
}
