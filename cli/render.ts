/**
 * Headless render command: one frame of a scene (any format the viewer
 * opens, through the same Viewer and loader) with the viewer's own passes,
 * written as a PNG; prints the frame's per-pass GPU timings as one JSON
 * line. `npm run render -- --help` prints the options (HELP below).
 */
import { parseArgs } from 'node:util';
import { writeFileSync } from 'node:fs';
import { createNodeViewer } from '../src/app/node-viewer';
import { fileSize } from '../src/io/node-scene-source';
import type { CameraFile } from '../src/app/camera/camera-file';
import { readCameraFile, readViewsText } from './command-files';
import { rgbToHex } from '../src/app/session/viewer-settings';
import { ACCUMULATIONS, DEFAULT_ACCUMULATION, type Accumulation } from '../src/render/accumulation-target';
import { renderReferenceCamera } from './reference-camera';
import { psnr, toRgba8 } from './picture-compare';
import { encodePng } from './png';
import { applyRenderSettings, checkWorldDrawn, openForRender } from './render-scene';
import { isUpAxis, UP_AXES } from '../src/app/camera/up-axis';
import { parseViewsFile, type NamedView } from '../src/app/views/views-file';
import { indexOfView } from '../src/app/views/view-list';
import type { SplatCloud } from '../src/scene/splat-cloud';
import { DEFAULT_SPLAT_ORDER, RENDERER_SETTINGS, SPLAT_ORDERS, type RendererSetting, type SplatOrder } from '../src/render/frame-renderer';
import { ANTI_ALIASING_SETTINGS, describeScreenFilter, screenFilterFor, type AntiAliasingSetting, type ScreenFilter } from '../src/scene/anti-aliasing';

/** The viewer's background, #101318. */
const VIEWER_BACKGROUND: [number, number, number] = [0x10 / 255, 0x13 / 255, 0x18 / 255];

const USAGE =
  'usage: npm run render -- --scene FILE --out OUT.png [--camera CAMERA.json | --width 1280 --height 800 [--views VIEWS.json [--view NAME] | --up -y]] [--key-bits 32] ' +
  `[--renderer ${RENDERER_SETTINGS.join('|')}] [--order ${SPLAT_ORDERS.join('|')}] [--accumulation ${ACCUMULATIONS.join('|')}] [--anti-aliasing ${ANTI_ALIASING_SETTINGS.join('|')}] [--reference] [--difference [--order-camera OTHER.json] | --pixel-order]`;

const HELP = `Renders one frame of a scene into a PNG, as the viewer draws it, and prints one JSON line:
the output, its size, the splat count, the renderer, the order drawn, the screen filter and the GPU time
of each pass.

  --scene FILE          any scene file the viewer opens (a SOG meta.json with its images beside it), or a
                        Streamed SOG world's lod-meta.json: every chunk the camera asks for (under the
                        viewer's budget) is read before the picture, and the JSON line adds what was drawn;
                        each chunk that fails is named on standard error, and where they leave nothing
                        drawn the command fails, writing no picture
  --out OUT.png         where the picture goes
  --camera CAMERA.json  a camera file (the viewer's "save camera": the picture the viewer showed, its
                        lens shift beside the panel included); without it the scene is framed
                        as the viewer opens it, at --width × --height (default 1280 × 800), with
                        --up up or the viewer's choice (+y for its default scene, a guess from the
                        splats where they show a clear ground, the footing an SPZ object stands on
                        where the file does not record its axes, else −y); the JSON line then gives
                        that camera, to edit and pass back with --camera
  --views VIEWS.json    a views file (the viewer's "save views file"): the picture is drawn from the
  --view NAME           view of that name (default: the first), at --width × --height
  --key-bits N          bits of the depth key the GPU sort orders by, 1 to 32 (default 32)
  --renderer R          what draws the splats: quads (blended quads, back to front; the default, the
                        same picture every run), tiles (compute, a 16×16 tile at a time, front to
                        back) or auto (as the viewer's setting: the scene is drawn a few times with
                        each, timed on the GPU, and the picture is the faster's; the JSON line adds
                        the median render time of each behind the choice)
  --order O             how each pixel's splats are ordered: centre-depth (by each splat's centre's
                        depth, one order for the whole frame; the default) or per-pixel (each pixel
                        blends its splats by their own depth along its ray; drawn with tiles whatever
                        --renderer says)
  --accumulation A      where splats are blended: ${ACCUMULATIONS.join(', ')} (default ${DEFAULT_ACCUMULATION})
  --anti-aliasing S     the screen filter, as the viewer's setting: auto follows the file, off is the
                        reference's +0.3 px², on the anti-aliased filter (${ANTI_ALIASING_SETTINGS.join('|')})
  --reference           also renders the CPU reference rasterizer's picture beside OUT as
                        OUT.reference.png, and prints its PSNR against the GPU picture (psnrDb)
  --difference          writes the sort difference view instead of the picture: the frame in the GPU
                        sort's order at --key-bits against the exact order of the same frame; the JSON
                        line adds how many pixels differ and by how much
  --order-camera OTHER  with --difference: the frame drawn in the exact order of that other camera
                        (a stale order, as a frozen one after the camera moved) instead
  --pixel-order         writes the per-pixel order view instead of the picture: the frame drawn by the
                        tile renderer in both orders, and where they differ; the JSON line adds how
                        many pixels differ and by how much (needs a float --accumulation)
Colours are written as the renderer computes them (no extra gamma). Warnings about the file (bytes
after its splats, splats far larger than the scene) go to standard error.`;

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      scene: { type: 'string' },
      camera: { type: 'string' },
      views: { type: 'string' },
      view: { type: 'string' },
      width: { type: 'string', default: '1280' },
      height: { type: 'string', default: '800' },
      up: { type: 'string' },
      out: { type: 'string' },
      'key-bits': { type: 'string', default: '32' },
      renderer: { type: 'string', default: 'quads' },
      order: { type: 'string', default: DEFAULT_SPLAT_ORDER },
      accumulation: { type: 'string', default: DEFAULT_ACCUMULATION },
      'anti-aliasing': { type: 'string', default: 'auto' },
      reference: { type: 'boolean', default: false },
      difference: { type: 'boolean', default: false },
      'order-camera': { type: 'string' },
      'pixel-order': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (args.help) {
    console.log(`${USAGE}\n\n${HELP}`);
    return;
  }
  if (!args.scene || !args.out) throw new Error(USAGE);
  const [width, height] = [Number(args.width), Number(args.height)];
  for (const [name, v] of [['--width', width], ['--height', height]] as const) {
    if (!Number.isInteger(v) || v < 1 || v > 16384) throw new Error(`${name} must be a whole number of pixels from 1 to 16384, got ${name === '--width' ? args.width : args.height}`);
  }
  if (args.up !== undefined && !isUpAxis(args.up)) throw new Error(`--up must be one of ${Object.keys(UP_AXES).join(', ')}, got ${args.up}`);
  const keyBits = Number(args['key-bits']);
  if (!Number.isInteger(keyBits) || keyBits < 1 || keyBits > 32) throw new Error(`--key-bits must be a whole number from 1 to 32, got ${args['key-bits']}`);
  const renderer = args.renderer as RendererSetting;
  if (!RENDERER_SETTINGS.includes(renderer)) throw new Error(`--renderer must be one of ${RENDERER_SETTINGS.join(', ')}, got ${args.renderer}`);
  const order = args.order as SplatOrder;
  if (!SPLAT_ORDERS.includes(order)) throw new Error(`--order must be one of ${SPLAT_ORDERS.join(', ')}, got ${args.order}`);
  const accumulation = args.accumulation as Accumulation;
  if (!ACCUMULATIONS.includes(accumulation)) throw new Error(`--accumulation must be one of ${ACCUMULATIONS.join(', ')}, got ${args.accumulation}`);
  const antiAliasing = args['anti-aliasing'] as AntiAliasingSetting;
  if (!ANTI_ALIASING_SETTINGS.includes(antiAliasing)) throw new Error(`--anti-aliasing must be one of ${ANTI_ALIASING_SETTINGS.join(', ')}, got ${args['anti-aliasing']}`);
  if (args['order-camera'] && !args.difference) throw new Error('--order-camera goes with --difference');
  if (args['pixel-order'] && args.difference) throw new Error('--pixel-order and --difference are two views: ask for one');
  if (args['pixel-order'] && accumulation === 'direct') throw new Error('--pixel-order needs a float --accumulation, not direct');
  const cameraFile = args.camera ? await readCameraFile(args.camera) : null;
  const namedView = args.views ? await viewOfFile(args.views, args.view) : null;
  if (args.view !== undefined && !args.views) throw new Error('--view names a view of a views file: give the file with --views');
  if (cameraFile && namedView) throw new Error('--camera and --views both name the camera: ask for one');
  const orderCamera = args['order-camera'] ? await readCameraFile(args['order-camera']) : null;

  // A path that is no file fails now, not after the device and its pipelines are made.
  await fileSize(args.scene);
  const { viewer, gpu, destroy } = await createNodeViewer('render', { frame: { accumulation } });
  try {
    // The viewer's own load: the same formats, limits, errors and warnings.
    const { scene, world } = await openForRender(viewer, args.scene, (warning) => console.error(`render: warning: ${warning}`));
    if (world && args.reference) throw new Error('--reference draws a scene on the CPU, not a world: leave it out');
    applyRenderSettings(viewer, { keyBits, antiAliasing, renderer, order, background: rgbToHex(VIEWER_BACKGROUND) });
    // The viewer's up rule, unless --up says otherwise.
    if (args.up !== undefined && isUpAxis(args.up)) {
      viewer.settings.upAxis = args.up;
      viewer.upAxisChosen();
    }
    const home = viewer.homeCamera(width, height);
    const camera = cameraFile ?? (namedView ? { ...home, eye: namedView.eye, target: namedView.target, up: namedView.up, fovy_deg: namedView.fovyDeg } : home);
    // What the viewer draws with: the scene's word, or a world's (WORLD_ANTI_ALIASING), under the setting.
    const screenFilter = screenFilterFor(antiAliasing, viewer.state.scene?.antiAliasing);
    // A world: every chunk this camera asks for, in (or failed, and said), before the picture.
    await viewer.settleWorld(camera);
    if (world) checkWorldDrawn(world, (warning) => console.error(`render: warning: ${warning}`));
    if (args.difference) {
      await viewer.prepareDifferenceView();
      viewer.settings.view = 'difference';
    }
    if (args['pixel-order']) viewer.settings.view = 'pixel-order';
    if (orderCamera) {
      // The order drawn last becomes the frozen order: the exact order of the other camera.
      Object.assign(viewer.settings, { keyBits: 32, view: 'picture' });
      await viewer.render({ ...orderCamera, width: camera.width, height: camera.height });
      Object.assign(viewer.settings, { keyBits, view: 'difference', freezeOrder: true });
    }
    const picture = await viewer.render(camera);
    if (args['pixel-order'] && !picture.difference) {
      throw new Error(`the per-pixel order view was not drawn: ${viewer.core.frame.viewError ?? viewer.core.frame.painters.tiles.failure ?? 'the frame counted no pixels'}`);
    }
    if (order !== viewer.state.order) console.error(`render: warning: drawn in the ${viewer.state.order} order, not ${order}${viewer.core.frame.painters.tiles.failure ? `: ${viewer.core.frame.painters.tiles.failure}` : ''}`);
    writeFileSync(args.out, encodePng(picture.width, picture.height, picture.rgba));
    const fields: Record<string, unknown> = {};
    if (picture.difference) {
      const d = picture.difference;
      Object.assign(fields, { differingPixels: d.pixels, differingFraction: round(d.fraction, 6), largestDifference: d.largest, meanDifference: round(d.mean, 3) });
    }
    if (args.reference && scene) Object.assign(fields, referenceFields(scene, camera, screenFilter, picture.rgba, args.out));
    if (world) fields.world = { drawn: world.frame.drawnSplats, budget: world.budget, thresholdPx: world.frame.thresholdPx, chunksLoaded: world.progress.chunksLoaded, bytesLoaded: world.progress.bytesLoaded, chunksFailed: world.progress.failed.size, decodedIn: world.files.decodedIn ?? 'this thread' };
    if (!cameraFile) fields.camera = camera;
    const drawn = viewer.state.renderer;
    if (renderer === 'auto') fields.auto = { choice: drawn.state, quadsMs: roundMs(drawn.medianMs.quads), tilesMs: roundMs(drawn.medianMs.tiles) };
    console.log(JSON.stringify({ out: args.out, width: picture.width, height: picture.height, splats: scene?.count ?? viewer.state.splats, renderer: drawn.renderer, order: viewer.state.order, accumulation, screenFilter: describeScreenFilter(screenFilter), ...fields, ...msFields(picture.timings), adapter: gpu.adapterName }));
  } finally {
    destroy();
  }
}

/** The view named `name` (default: the first) of the views file at `path`; the error names the file and what is wrong. */
async function viewOfFile(path: string, name: string | undefined): Promise<NamedView> {
  try {
    // A file far past what a views file may be is refused before it is read.
    const { views } = parseViewsFile(await readViewsText(path));
    if (views.length === 0) throw new Error('it holds no views');
    return views[name === undefined ? 0 : indexOfView(views, name)]!;
  } catch (error) {
    throw new Error(`--views ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Renders the reference picture, writes it beside `out` and measures the GPU picture against it. */
function referenceFields(cloud: SplatCloud, camera: CameraFile, screenFilter: ScreenFilter, gpu: Uint8Array, out: string): Record<string, unknown> {
  const started = performance.now();
  const reference = renderReferenceCamera(cloud, camera, { screenFilter });
  const referenceMs = performance.now() - started;
  const pixels = toRgba8(reference.rgb);
  const referenceOut = out.replace(/(\.png)?$/i, '.reference.png');
  writeFileSync(referenceOut, encodePng(camera.width, camera.height, pixels));
  const db = psnr(gpu, pixels);
  return { reference: referenceOut, psnrDb: Number.isFinite(db) ? round(db, 2) : 'identical', referenceMs: Math.round(referenceMs) };
}

function round(x: number, digits: number): number {
  return Math.round(x * 10 ** digits) / 10 ** digits;
}

function roundMs(ms: number | null): number | null {
  return ms === null ? null : round(ms, 4);
}

function msFields(t: Record<string, number | null>): Record<string, number | null> {
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [`${k}Ms`, roundMs(v)]));
}

main().catch((error: unknown) => {
  console.error(`render: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
