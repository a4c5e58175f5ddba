import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'sort-table-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const row = (fields: Record<string, unknown>) =>
  JSON.stringify({ impl: 'gpu-radix', config: 'd8', ranking: 'portable', digitBits: 8, radix: 256, tile: 4096, n: 1048576, keyBits: 32, ...fields });

test('the ratio table is of random keys: a row of another --keys pattern does not take its place', () => {
  // The all-equal row comes first, as it would if its run's output were read first.
  const file = join(dir, 'rows.jsonl');
  writeFileSync(
    file,
    [
      row({ keys: 'equal', ms: 0.05, spread: 0.01 }),
      row({ ms: 0.1, spread: 0.01 }),
      JSON.stringify({ impl: 'cub', n: 1048576, bits: 32, ms: 0.08 }),
    ].join('\n'),
  );
  const out = execFileSync(process.execPath, ['bench/sort-table.mjs', file], { encoding: 'utf8' });
  const line = out.split('\n').find((l) => l.startsWith('| 1M | 32 |'));
  expect(line).toBeDefined();
  expect(line).toContain('| 0.100 |');
  expect(line).toContain('1.25×');
  expect(out).not.toContain('0.050');
});
