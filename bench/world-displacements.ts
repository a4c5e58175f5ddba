/**
 * Writes each leaf's measured displacements into a Streamed SOG world's
 * index (src/scene/level-displacement.ts): per leaf, how far each level
 * moves the leaf's detail from the finest level's, in scene units, as
 * `displacements` beside splat-transform's own fields, so that the
 * viewer's threshold in pixels means pixels of displacement on screen.
 * make-world runs it on every world it builds; on a world from elsewhere:
 *
 *   npm run bench:build && node bench-dist/world-displacements.mjs --index world/lod-meta.json [--jobs N]
 *
 * --jobs: threads measuring at once (default: the machine's cores), each
 * a worker taking batches of neighbouring leaves and decoding their
 * chunks itself; the index written is the same whatever the number.
 * Prints one JSON line {index, leaves, levels, chunks, jobs, seconds}
 * (chunks: the decodes, every worker's). The index is replaced only once
 * the new one is whole on disk (cli/replace-file.ts).
 */
import { availableParallelism } from 'node:os';
import { commandLine } from './command-line';
import { wholeNumber } from './bench-options';
import { writeDisplacements } from './world-displacements-write';
import help from './world-displacements.ts?help';

const { values: args } = commandLine('world-displacements', help, { index: { type: 'string' }, jobs: { type: 'string', default: String(availableParallelism()) } });
if (!args.index) throw new Error('--index PATH/lod-meta.json is required');
const jobs = wholeNumber('jobs', args.jobs!, 1);
// The worker's bundle lies beside this command's (bench/vite.config.ts).
const worker = new URL('./world-displacements-worker.mjs', import.meta.url);
const result = await writeDisplacements(args.index, { jobs, worker, say: (line) => console.error(`[world-displacements] ${line}`) });
console.log(JSON.stringify({ index: args.index, ...result }));
