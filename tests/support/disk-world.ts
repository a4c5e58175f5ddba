/**
 * A Streamed SOG world written to a folder without splat-transform, for
 * the tests of what reading it from a disk costs: one level, a leaf per
 * chunk, each chunk an unbundled SOG scene (the tests' SOG writer) whose
 * every splat its leaf draws. A test then puts links, pipes and devices in
 * place of its files. Node only.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { writeSog } from './sog-writer';

/** Writes `chunks` as chunk files 0_0/, 0_1/, … of a world in `dir`; returns the path of its lod-meta.json. */
export async function writeDiskWorld(dir: string, chunks: readonly SplatCloud[]): Promise<string> {
  const filenames: string[] = [];
  const leaves: unknown[] = [];
  for (const [file, cloud] of chunks.entries()) {
    const sog = await writeSog(cloud);
    const folder = `0_${file}`;
    mkdirSync(join(dir, folder), { recursive: true });
    writeFileSync(join(dir, folder, 'meta.json'), sog.metaJson);
    for (const [name, bytes] of sog.files) writeFileSync(join(dir, folder, name), bytes);
    filenames.push(`${folder}/meta.json`);
    leaves.push({ bound: cloud.bounds, lods: { 0: { file, offset: 0, count: cloud.count } } });
  }
  const min = [0, 1, 2].map((a) => Math.min(...chunks.map((c) => c.bounds.min[a]!)));
  const max = [0, 1, 2].map((a) => Math.max(...chunks.map((c) => c.bounds.max[a]!)));
  const index = join(dir, 'lod-meta.json');
  writeFileSync(index, JSON.stringify({ version: 1, lodLevels: 1, filenames, tree: { bound: { min, max }, children: leaves } }));
  return index;
}
