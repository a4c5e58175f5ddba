/**
 * Turning a splat's view-dependent colour with the splat: the SH
 * coefficients of degrees 1-3 (SplatCloud's order and signs, the INRIA
 * forward pass's) of a colour f, made those of f turned by an orthogonal
 * matrix Q, g(d) = f(Qᵀ d). Each degree's functions span a space that
 * orthogonal maps keep, so for each degree one matrix takes f's
 * coefficients to g's (a Wigner D-matrix in this real basis). It is found
 * here by fitting: at fixed directions d_j, g's basis values B and f's
 * A_j = Y(Qᵀ d_j) give B T = A, solved in least squares, which is exact
 * (to rounding) because the degree's space holds g; a mirror (det Q = -1)
 * is an orthogonal map like any other. Fitting leaves no sign convention
 * to get wrong: the basis is the renderer's own. DOM-free.
 */

/** Coefficients of degree l: 2l + 1, at offset l² − 1 of the 15 of degrees 1-3. */
const BANDS = [
  { first: 0, size: 3 },
  { first: 3, size: 5 },
  { first: 8, size: 7 },
] as const;

/**
 * The 15 real SH basis functions of degrees 1-3 at unit direction (x, y, z),
 * as the renderer evaluates them (the constants and signs of the INRIA
 * forward pass, KHR_gaussian_splatting's Lighting section).
 */
export function shBasis(x: number, y: number, z: number, out: Float64Array): void {
  const xx = x * x, yy = y * y, zz = z * z;
  out[0] = -0.4886025119029199 * y;
  out[1] = 0.4886025119029199 * z;
  out[2] = -0.4886025119029199 * x;
  out[3] = 1.0925484305920792 * x * y;
  out[4] = -1.0925484305920792 * y * z;
  out[5] = 0.31539156525252005 * (2 * zz - xx - yy);
  out[6] = -1.0925484305920792 * x * z;
  out[7] = 0.5462742152960396 * (xx - yy);
  out[8] = -0.5900435899266435 * y * (3 * xx - yy);
  out[9] = 2.890611442640554 * x * y * z;
  out[10] = -0.4570457994644658 * y * (4 * zz - xx - yy);
  out[11] = 0.3731763325901154 * z * (2 * zz - 3 * xx - 3 * yy);
  out[12] = -0.4570457994644658 * x * (4 * zz - xx - yy);
  out[13] = 1.445305721320277 * z * (xx - yy);
  out[14] = -0.5900435899266435 * x * (xx - 3 * yy);
}

/** Directions spread evenly over the sphere (a Fibonacci lattice): more than the 7 a degree-3 fit needs, none aligned with an axis. */
const SAMPLES = Array.from({ length: 48 }, (_, j) => {
  const z = 1 - (2 * j + 1) / 48;
  const r = Math.sqrt(1 - z * z);
  const phi = j * Math.PI * (3 - Math.sqrt(5));
  return [r * Math.cos(phi), r * Math.sin(phi), z] as const;
});

/** Basis values at the samples, 15 a sample. */
const SAMPLE_BASIS = (() => {
  const out = new Float64Array(SAMPLES.length * 15);
  SAMPLES.forEach(([x, y, z], j) => shBasis(x, y, z, out.subarray(15 * j, 15 * j + 15)));
  return out;
})();

/**
 * For an orthogonal 3×3 matrix `q` (row-major), one matrix a degree up to
 * `degree` (row-major, (2l+1)² each) taking the coefficients of f to those
 * of f turned by q.
 */
export function shRotation(q: ArrayLike<number>, degree: number): Float64Array[] {
  const turned = new Float64Array(SAMPLES.length * 15);
  SAMPLES.forEach(([x, y, z], j) => {
    // Qᵀ d: where the turned colour looks up the original one.
    shBasis(
      q[0]! * x + q[3]! * y + q[6]! * z,
      q[1]! * x + q[4]! * y + q[7]! * z,
      q[2]! * x + q[5]! * y + q[8]! * z,
      turned.subarray(15 * j, 15 * j + 15),
    );
  });
  return BANDS.slice(0, degree).map(({ first, size }) => {
    // Normal equations: (Bᵀ B) T = Bᵀ A.
    const normal = new Float64Array(size * size);
    const right = new Float64Array(size * size);
    for (let j = 0; j < SAMPLES.length; j++) {
      for (let r = 0; r < size; r++) {
        const b = SAMPLE_BASIS[15 * j + first + r]!;
        for (let c = 0; c < size; c++) {
          normal[r * size + c]! += b * SAMPLE_BASIS[15 * j + first + c]!;
          right[r * size + c]! += b * turned[15 * j + first + c]!;
        }
      }
    }
    return solve(normal, right, size);
  });
}

/** X with A X = B, A symmetric positive definite (n × n), B n × n, both row-major; by Gauss-Jordan elimination with partial pivoting. */
function solve(a: Float64Array, b: Float64Array, n: number): Float64Array {
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r * n + col]!) > Math.abs(a[pivot * n + col]!)) pivot = r;
    for (let c = 0; c < n; c++) {
      [a[col * n + c], a[pivot * n + c]] = [a[pivot * n + c]!, a[col * n + c]!];
      [b[col * n + c], b[pivot * n + c]] = [b[pivot * n + c]!, b[col * n + c]!];
    }
    const inverse = 1 / a[col * n + col]!;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const factor = a[r * n + col]! * inverse;
      if (factor === 0) continue;
      for (let c = 0; c < n; c++) {
        a[r * n + c]! -= factor * a[col * n + c]!;
        b[r * n + c]! -= factor * b[col * n + c]!;
      }
    }
  }
  for (let r = 0; r < n; r++) {
    const inverse = 1 / a[r * n + r]!;
    for (let c = 0; c < n; c++) b[r * n + c]! *= inverse;
  }
  return b;
}

/**
 * Turns the SH of splats first..first+count-1 of `sh` (K coefficients a
 * channel, SplatCloud's layout) by the matrices of shRotation, in place.
 */
export function rotateSh(sh: Float32Array, K: number, first: number, count: number, rotation: readonly Float64Array[]): void {
  const before = new Float64Array(7);
  for (let i = first; i < first + count; i++) {
    for (let c = 0; c < 3; c++) {
      rotation.forEach((matrix, l) => {
        const { first: k0, size } = BANDS[l]!;
        for (let m = 0; m < size; m++) before[m] = sh[(i * K + k0 + m) * 3 + c]!;
        for (let r = 0; r < size; r++) {
          let sum = 0;
          for (let m = 0; m < size; m++) sum += matrix[r * size + m]! * before[m]!;
          sh[(i * K + k0 + r) * 3 + c] = sum;
        }
      });
    }
  }
}
