/**
 * A Streamed SOG world (lod-meta.json and its SOG chunks) far larger than
 * one scene, for the world benchmark and for trying the viewer: `copies`
 * copies of a real scene on a square grid in the x–z plane (as
 * bench/replicate.ts lays them out) at `levels` levels of detail. Level l
 * is the scene decimated to 1/4^l of its splats by splat-transform (its
 * decimation runs on WebGPU: SwiftShader's driver is used where no other
 * is named), placed like level 0. Each copy of each level is written as a
 * PLY of its own (splat-transform joins sources of one space only), and
 * splat-transform cuts the tagged copies into chunks and writes the index.
 * The folder keeps the PLYs (a rerun reuses them); the world is its
 * world/ folder. State in results that the world
 * is replicated. Prints one JSON line:
 *   {scene, copies, levels, counts, splats, chunks, bytes, seconds, index}
 *
 *   node bench-dist/make-world.mjs --scene ../shared/scenes/inria_karangkidul_1M_sh0_decoded.ply \
 *     --copies 50 --levels 3 --out worlds/karangkidul-50
 */
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { loadSceneFile } from '../src/io/node-scene-source';
import { nodeLoadLimits } from '../src/app/node-viewer';
import { parseLodMeta } from '../src/io/lod/lod-meta';
import { writeInriaPly } from '../src/io/writers/inria-ply';
import { gridShifts } from './replicate';
import { wholeNumber } from './bench-options';
import { SPLAT_TRANSFORM_CLI } from './splat-transform';

const { values: args } = parseArgs({
  options: {
    scene: { type: 'string' },
    copies: { type: 'string', default: '50' },
    levels: { type: 'string', default: '3' },
    out: { type: 'string' },
  },
});
if (!args.scene || !args.out) throw new Error('make-world needs --scene FILE and --out FOLDER');
const copies = wholeNumber('copies', args.copies!, 1);
const levels = wholeNumber('levels', args.levels!, 1);
const out = resolve(args.out);
const started = performance.now();
mkdirSync(out, { recursive: true });

// Set before anything opens a GPU: this process's load limits, and splat-transform's decimation.
const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';
if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER)) process.env.VK_ICD_FILENAMES = SWIFTSHADER;
const env = { ...process.env };
const splatTransform = (argv: string[]) => execFileSync(process.execPath, [SPLAT_TRANSFORM_CLI, '--no-tty', ...argv], { env, stdio: ['ignore', 'ignore', 'inherit'] });

// The grid from the scene's own extent (robust to stray splats).
const limits = await nodeLoadLimits();
const { cloud } = await loadSceneFile(args.scene, { limits });
const shifts = gridShifts(cloud, copies);

const levelFiles = [resolve(args.scene)];
for (let level = 1; level < levels; level++) {
  const file = join(out, `level-${level}.ply`);
  if (!existsSync(file)) splatTransform([levelFiles[0]!, '--decimate', `${100 / 4 ** level}%`, file]);
  levelFiles.push(file);
}
// splat-transform concatenates sources of one space only: each copy of each level is written, shifted, as a PLY of its own.
const inputs: string[] = [];
for (const [level, file] of levelFiles.entries()) {
  const source = level === 0 ? cloud : (await loadSceneFile(file, { limits })).cloud;
  const original = source.positions.slice();
  shifts.forEach(([dx, dz], copy) => {
    for (let i = 0; i < source.count; i++) {
      source.positions[3 * i] = original[3 * i]! + dx;
      source.positions[3 * i + 2] = original[3 * i + 2]! + dz;
    }
    const shifted = join(out, `copy-${copy}-level-${level}.ply`);
    if (!existsSync(shifted)) writeFileSync(shifted, writeInriaPly(source));
    inputs.push(shifted, '--tag-lod', String(level));
  });
}
const index = join(out, 'world', 'lod-meta.json');
splatTransform([...inputs, index]);

const world = parseLodMeta(readFileSync(index, 'utf8'), index);
let bytes = 0;
const walk = (dir: string) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) walk(join(dir, entry.name));
    else bytes += statSync(join(dir, entry.name)).size;
  }
};
walk(dirname(index));
console.log(JSON.stringify({
  scene: basename(args.scene), copies, levels, counts: world.counts, splats: world.counts.reduce((a, b) => a + b, 0),
  chunks: world.filenames.length, leaves: world.leaves, bytes, seconds: Math.round((performance.now() - started) / 1000), index,
}));
