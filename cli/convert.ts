/**
 * Convert command: reads a scene (any format the viewer opens, through the
 * same loader as the viewer and the render command) and writes it as an
 * INRIA .ply, a .splat, an .spz or a .glb, all of it or only the splats in
 * a camera's view or in a box. What the output's format cannot hold of the
 * scene is said before anything is written, and refused unless
 * --allow-loss; the output is written beside itself and takes the old
 * file's place only when whole (replace-file.ts). No GPU needed.
 * `npm run convert -- --help` prints the options (HELP below).
 */
import { parseArgs } from 'node:util';
import { totalmem } from 'node:os';
import { loadSceneFile } from '../src/io/node-scene-source';
import { PLY_ROW_BYTES, type LoadLimits } from '../src/io/load-limits';
import { formatForOutput, WRITABLE_EXTENSIONS_TEXT, WRITABLE_FORMATS } from '../src/io/formats/save-formats';
import { SCENE_FILES_TEXT } from '../src/io/formats/scene-files';
import { cameraFrame, parseBox, saveSplats, selectSplats, type SplatSelection } from '../src/app/session/splat-selection';
import { screenFilterFor } from '../src/scene/anti-aliasing';
import { lossesText, saveLosses, WORLD_NOT_SAVED } from '../src/io/formats/save-losses';
import { isWorldIndexName } from '../src/io/lod/world-name';
import { replaceFile } from './replace-file';
import { readCameraFile } from './command-files';

const USAGE = `usage: npm run convert -- INPUT OUTPUT(${WRITABLE_EXTENSIONS_TEXT.split(' ').join('|')}) [--in-view CAMERA.json | --box minx,miny,minz,maxx,maxy,maxz] [--allow-loss]`;

const HELP = `Writes a scene as another splat file, and prints one JSON line: the output, its format,
the splats written and of how many, and its size in bytes.

  INPUT                 ${SCENE_FILES_TEXT}
  OUTPUT                the file to write; its extension chooses the format:
${WRITABLE_FORMATS.map((f) => `                          ${f.extensions[0]!.padEnd(7)}${f.label}: ${f.writer.keeps}`).join('\n')}
  --in-view CAMERA.json only the splats that camera sees (a camera file: the viewer's "save camera",
                        or the render command's): those whose quad, out to 3 sigma, reaches into its
                        picture, as the viewer draws it
  --box X,Y,Z,X,Y,Z     only the splats whose centre lies in the box from (minx, miny, minz) to
                        (maxx, maxy, maxz), in scene coordinates
  --allow-loss          write the output even where its format cannot hold something of the scene
                        (SH bands, an anti-aliasing filter, sizes past its range); without it such a
                        conversion is refused, writing nothing
What the output would lose is said on standard error before anything is written, as are warnings
about the input (bytes after its splats, splats far larger than the scene). The output is written
beside itself and replaces an old file only once whole: a failed write leaves the old file as it was.`;

/**
 * What a conversion may load. No GPU bounds it, the machine's memory does:
 * the decoded scene and its file gathered beside it (each at most a PLY
 * row a splat) in half of it, a file no larger than a typed array holds.
 */
function machineLimits(): LoadLimits {
  const budget = totalmem() / 2;
  const splats = (degree: 0 | 1 | 2 | 3) => Math.floor(budget / (2 * PLY_ROW_BYTES[degree]));
  return { maxSplats: [splats(0), splats(1), splats(2), splats(3)], maxBytes: Math.min(budget, 2 ** 32 - 1) };
}

/** "--box -1,…" as "--box=-1,…": a box's first number is often negative, which parseArgs takes for an option. */
function boxJoined(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--box' && i + 1 < argv.length) out.push(`--box=${argv[++i]}`);
    else out.push(argv[i]!);
  }
  return out;
}

async function main(): Promise<void> {
  const { values: args, positionals } = parseArgs({
    args: boxJoined(process.argv.slice(2)),
    allowPositionals: true,
    options: {
      'in-view': { type: 'string' },
      box: { type: 'string' },
      'allow-loss': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (args.help) {
    console.log(`${USAGE}\n\n${HELP}`);
    return;
  }
  const [input, output, ...extra] = positionals;
  if (!input || !output || extra.length > 0) throw new Error(USAGE);
  if (args['in-view'] !== undefined && args.box !== undefined) throw new Error('--in-view and --box each choose the splats: give one of them');
  if (isWorldIndexName(input)) throw new Error(WORLD_NOT_SAVED);
  // Checked before the scene is read: a wrong extension or camera costs no load.
  const format = formatForOutput(output);
  const camera = args['in-view'] === undefined ? null : await readCameraFile(args['in-view']);
  const box = args.box === undefined ? null : parseBox(args.box);

  // The render command's load: the same formats, errors and warnings.
  const { cloud, warnings } = await loadSceneFile(input, { limits: machineLimits() });
  for (const warning of warnings) console.error(`convert: warning: ${warning}`);
  const selection: SplatSelection = camera ? { keep: 'in-view', frame: cameraFrame(camera, screenFilterFor('auto', cloud.antiAliasing)) }
    : box ? { keep: 'box', box } : { keep: 'all' };
  const kept = selectSplats(cloud, selection);
  const losses = kept.count > 0 ? saveLosses(kept, format) : [];
  if (losses.length > 0) {
    console.error(`convert: ${lossesText(format.label, losses)}`);
    if (!args['allow-loss']) throw new Error(`nothing written to '${output}': add --allow-loss to write it all the same, or convert to a format that keeps it`);
  }
  const saved = await saveSplats(cloud, format, selection);
  await replaceFile(output, saved.bytes);
  console.log(JSON.stringify({ out: output, format: format.label, splats: saved.splats, of: saved.of, bytes: saved.bytes.length }));
}

main().catch((error: unknown) => {
  console.error(`convert: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
