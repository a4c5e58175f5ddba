import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'tile-table-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const common = { scene: 's.ply', copies: 1, splats: 1000, chunks: 1, keyBits: 32, accumulation: 'rgba16float', width: 1920, height: 1080, adapter: 'GPU' };
const quads = (pose: string, frameMs: number) => JSON.stringify({ ...common, pose, camera: `cams/${pose}.json`, renderer: 'quads', visible: 800, frameMs });
const tiles = (pose: string, fields: Record<string, unknown>) =>
  JSON.stringify({
    ...common, pose, camera: `cams/${pose}.json`, renderer: 'tiles', order: 'centre-depth', visible: 800, drawn: 'tiles',
    projectMs: 0.1, sortMs: 0.2, binMs: 0.1, pairSortMs: 0.3, rangesMs: 0.01, rasterMs: 1, renderMs: 1.7, profiledRenderMs: 1.8,
    pairs: 300, pairsPerSplat: 0.375, boxPairs: 600, ...fields,
  });
const inria = (pose: string, ms: number) => JSON.stringify({ camera: `/tmp/run/cameras/${pose}.json`, width: 1920, height: 1080, ms_median: ms, ms_min: ms, visible: 790 });

function table(): string {
  const frame = join(dir, 'frame.jsonl');
  const reference = join(dir, 'inria.jsonl');
  // The 'out' lines are older ones, without an order: centre depth.
  const lines = [
    quads('in', 8), tiles('in', { frameMs: 2 }), tiles('in', { frameMs: 2.5, order: 'per-pixel', pairs: 330, rasterMs: 1.5 }),
    quads('out', 4), tiles('out', { frameMs: 5, order: undefined }),
  ];
  writeFileSync(frame, lines.join('\n'));
  writeFileSync(reference, [inria('in', 4), inria('out', 4)].join('\n'));
  return execFileSync(process.execPath, ['bench/tile-table.mjs', frame, reference], { encoding: 'utf8' });
}

test('each view is set against the INRIA time at the camera file of the same name, with the goal judged', () => {
  const rows = table().split('\n');
  const inside = rows.find((l) => l.startsWith('| in | centre-depth | s.ply'));
  expect(inside).toContain('| 4.00 | 2.00 | 0.50× | met, ≤ 0.5× | 8.00 | 0.25× | — |');
  const outside = rows.find((l) => l.startsWith('| out | centre-depth | s.ply'));
  expect(outside).toContain('| 1.25× | missed |');
});

test('each order the tiles drew is a row of its own, set against the centre-depth quad frame and the centre-depth tile frame', () => {
  const rows = table().split('\n');
  const perPixel = rows.find((l) => l.startsWith('| in | per-pixel | s.ply'));
  // 2.5 ms against INRIA's 4, the quads' 8 and the centre-depth tiles' 2.
  expect(perPixel).toContain('| 4.00 | 2.50 | 0.63× | met, ≤ 1.0× | 8.00 | 0.31× | 1.25× |');
  expect(rows.filter((l) => l.startsWith('| in | '))).toHaveLength(4);
  const passes = rows.find((l) => l.startsWith('| in | per-pixel | 330 |'));
  expect(passes).toContain('| 1.50 |');
});

test('the pass table gives what the ellipse saves against boxes and both sorts over the frame', () => {
  const line = table().split('\n').find((l) => l.startsWith('| in | centre-depth | 300 |'));
  expect(line).toContain('| 50 % (2.00×) |');
  // (0.2 depth sort + 0.3 pair sort) over a 2 ms frame.
  expect(line).toContain('| 25 % (10 % + 15 %) |');
});
