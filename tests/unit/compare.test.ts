/**
 * bench-sort's --compare: reading a reference command's JSON lines, noticing
 * when its before and after runs disagree, and the ratio table.
 */
import { describe, expect, test } from 'vitest';
import { COMPARE_AGREEMENT, compareDisagreements, parseCompareOutput, ratioTable, type CompareRow } from '../../bench/compare';

const cub = (n: number, bits: number, ms: number): CompareRow => ({ impl: 'cub', n, bits, ms });

describe('parseCompareOutput', () => {
  test('keeps complete rows, other JSON objects as information, and skips everything else', () => {
    const text = [
      'compiling...',
      '{"device": "NVIDIA H100"}',
      '{"impl":"cub","n":1048576,"bits":32,"ms":0.086}',
      '{"impl":"cub","n":1048576,"bits":16}',
      '{not json',
      '  {"impl":"cub","n":16,"bits":16,"ms":0.01}  ',
    ].join('\n');
    const run = parseCompareOutput(text);
    expect(run.rows).toEqual([cub(1048576, 32, 0.086), cub(16, 16, 0.01)]);
    expect(run.info).toEqual([{ device: 'NVIDIA H100' }, { impl: 'cub', n: 1048576, bits: 16 }]);
  });
});

describe('compareDisagreements', () => {
  test(`flags rows whose after run differs from before by more than ${100 * COMPARE_AGREEMENT} %`, () => {
    const before = [cub(1, 32, 1.0), cub(2, 32, 1.0), cub(3, 32, 1.0)];
    const after = [cub(1, 32, 1.04), cub(2, 32, 0.9), cub(4, 32, 5)];
    const found = compareDisagreements(before, after);
    expect(found.map((d) => d.row.n)).toEqual([2]);
    expect(found[0]!.change).toBeCloseTo(-0.1);
  });
});

describe('ratioTable', () => {
  const compare = [cub(1 << 20, 32, 0.08), cub(1 << 20, 32, 0.1), cub(1 << 24, 32, 0.6), cub(1 << 24, 16, 0.3)];

  test('one table per configuration: our median over the mean of the reference runs', () => {
    const table = ratioTable(
      [
        { config: 'd8', ranking: 'portable', n: 1 << 20, keyBits: 32, ms: 0.126, spread: 0.012 },
        { config: 'd8', ranking: 'portable', n: 1 << 24, keyBits: 32, ms: 1.2, spread: 0.004 },
        { config: 'd8s', ranking: 'subgroup', n: 1 << 24, keyBits: 32, ms: 0.9 },
      ],
      compare,
    );
    expect(table).toContain('Splatsort d8 (portable ranking) beside cub');
    expect(table).toContain('| 1M | 32 | 0.126 | 1.2 % | 0.090 | 1.40× |');
    expect(table).toContain('| 16M | 32 | 1.20 | 0.4 % | 0.600 | 2.00× |');
    expect(table).toContain('Splatsort d8s (subgroup ranking) beside cub');
    expect(table).toContain('| 16M | 32 | 0.900 | – | 0.600 | 1.50× |');
    expect(table).not.toContain('†');
  });

  test('an unstable row gets no number and no ratio; drift and disagreement get their marks', () => {
    const table = ratioTable(
      [
        { config: 'd8', n: 1 << 24, keyBits: 32, ms: null },
        { config: 'd8', n: 1 << 24, keyBits: 16, ms: 0.6, spread: 0.01, drift: true },
        { config: 'd8', n: 1 << 20, keyBits: 32, ms: 0.1, spread: 0.01 },
      ],
      compare,
      new Set([`${1 << 20}/32`]),
    );
    expect(table).toContain('| 16M | 32 | unstable | – | 0.600 | – |');
    expect(table).toContain('| 16M | 16 | 0.600† | 1.0 % | 0.300 | 2.00× |');
    expect(table).toContain('| 1M | 32 | 0.100‡ | 1.0 % | 0.090 | 1.11× |');
    expect(table).toMatch(/† drift.*‡ cub before and after differ by more than 5 %/);
  });

  test('rows the reference did not measure are left out', () => {
    expect(ratioTable([{ config: 'd8', n: 12345, keyBits: 32, ms: 1 }], compare)).toBe('');
  });
});
