/**
 * Writes each leaf's measured displacements into a Streamed SOG world's
 * index (src/scene/level-displacement.ts): per leaf, how far each level
 * moves the leaf's detail from the finest level's, in scene units, as
 * `displacements` beside splat-transform's own fields, so that the
 * viewer's threshold in pixels means pixels of displacement on screen.
 * make-world runs it on every world it builds; on a world from elsewhere:
 *
 *   npm run bench:build && node bench-dist/world-displacements.mjs --index world/lod-meta.json
 *
 * Prints one JSON line {index, leaves, chunks, seconds}. The index is
 * replaced only once the new one is whole on disk (cli/replace-file.ts).
 */
import { commandLine } from './command-line';
import { writeDisplacements } from './world-displacements-write';
import help from './world-displacements.ts?help';

const { values: args } = commandLine('world-displacements', help, { index: { type: 'string' } });
if (!args.index) throw new Error('--index PATH/lod-meta.json is required');
const result = await writeDisplacements(args.index, { say: (line) => console.error(`[world-displacements] ${line}`) });
console.log(JSON.stringify({ index: args.index, ...result }));
