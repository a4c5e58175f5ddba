/**
 * The WGSL loop unroller: which loops it expands, and that the result keeps
 * the loop's meaning. (Its effect on the real shaders is covered by the GPU
 * sort tests, which run the unrolled subgroup scatter.)
 */
import { describe, expect, test } from 'vitest';
import { evaluate, unrollConstantLoops } from '../../src/gpu/wgsl-unroll';

describe('evaluate', () => {
  const constants = new Map([
    ['ITEMS', 12],
    ['WG', 256],
  ]);
  test.each([
    ['4u', 4],
    ['ITEMS / 4u', 3],
    ['(32u + 8u - 1u) / 8u', 4],
    ['WG * ITEMS', 3072],
    ['ITEMS - 2u * 3u', 6],
  ])('%s = %i', (expr, value) => {
    expect(evaluate(expr, constants)).toBe(value);
  });
  test.each(['n', 'ITEMS / 0u', 'ITEMS +', '(4u', 'arrayLength(&x)'])('%s is not a known constant', (expr) => {
    expect(evaluate(expr, constants)).toBeUndefined();
  });
});

describe('unrollConstantLoops', () => {
  test('expands a loop over a module constant, nested loops included, with a const index per copy', () => {
    const src = `const ITEMS: u32 = 2u;
fn f() {
  for (var k = 0u; k < ITEMS; k++) {
    for (var c = 0u; c < 2u; c++) {
      a[2u * k + c] = k;
    }
  }
}`;
    const out = unrollConstantLoops(src);
    expect(out).not.toContain('for (');
    const indices = [...out.matchAll(/const (\w) = (\d)u;/g)].map((m) => `${m[1]}${m[2]}`);
    expect(indices).toEqual(['k0', 'c0', 'c1', 'k1', 'c0', 'c1']);
    // Each copy is its own block, so the copies' const declarations do not clash.
    expect(out.split('{').length).toBe(out.split('}').length);
  });

  test('derived constants count: const VECS: u32 = ITEMS / 4u', () => {
    const out = unrollConstantLoops('const ITEMS: u32 = 8u;\nconst VECS: u32 = ITEMS / 4u;\nfn f() { for (var q = 0u; q < VECS; q++) { g(q); } }');
    expect(out.match(/g\(q\)/g)).toHaveLength(2);
  });

  test.each([
    ['a bound that is not constant', 'fn f(n: u32) { for (var i = 0u; i < n; i++) { g(i); } }'],
    ['a body that assigns the index', 'fn f() { for (var i = 0u; i < 4u; i++) { i += 1u; } }'],
    ['a body with break', 'fn f() { for (var i = 0u; i < 4u; i++) { if (g(i)) { break; } } }'],
    ['a body with continue', 'fn f() { for (var i = 0u; i < 4u; i++) { if (g(i)) { continue; } } }'],
    ['more trips than the limit', 'fn f() { for (var i = 0u; i < 64u; i++) { g(i); } }'],
    ['another loop shape', 'fn f() { for (var i = lid; i < 256u; i += 64u) { g(i); } }'],
  ])('leaves %s alone', (_, src) => {
    expect(unrollConstantLoops(src)).toBe(src);
  });
});
