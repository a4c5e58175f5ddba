/**
 * How many of a pixel's arrivals could skip the per-pixel order's depth
 * along the ray: a splat whose depth range (its centre's depth ± its
 * reach, the range the ray depth is clamped to) overlaps no other splat's
 * range keeps its centre-depth place at every pixel, exactly, so its ray
 * depth is never needed. Counted on the CPU reference at a crop of each
 * camera (at the camera's own pixel scale, as bench/order-study.ts crops),
 * over the arrivals a pixel meets in centre-depth order (alpha ≥ 1/255)
 * until it stops:
 * - `isolatedAtPixel`: arrivals whose range overlaps no other arrival's at
 *   that pixel (what a pixel could know only by looking ahead: a bound);
 * - `isolatedInTile`: arrivals whose range overlaps no other splat's in
 *   the tile's whole list (what a pass over the tile's list could mark).
 *
 *   node bench-dist/depth-overlap.mjs --scene a.ply --camera 9k-inside.json,9k-outside.json [--width 240 --height 135]
 */
import { readFile } from 'node:fs/promises';
import { parseCameraFile } from '../src/app/camera/camera-file';
import { cropAtPixelScale } from './camera-turn';
import { renderReferenceCamera } from '../cli/reference-camera';
import { loadSceneFile } from '../src/io/node-scene-source';
import { ALPHA_MIN, alphaAt, type Preprocessed, type ReferenceOrder } from '../src/render/reference-rasterizer';
import { blendOne, endPixel, startPixel } from './reference-pixel-order';
import { rayShapeReach } from '../src/render/reference-ray-shape';
import { rangesAlone } from './depth-ranges';
import { wholeNumber } from './bench-options';
import { commandLine } from './command-line';
import help from './depth-overlap.ts?help';

const { values: args } = commandLine('depth-overlap', help, {
  scene: { type: 'string' },
  camera: { type: 'string' },
  width: { type: 'string', default: '240' },
  height: { type: 'string', default: '135' },
});
if (!args.scene || !args.camera) throw new Error('name a scene (--scene) and camera files (--camera)');
const width = wholeNumber('--width', args.width, 1);
const height = wholeNumber('--height', args.height, 1);
const cloud = (await loadSceneFile(args.scene)).cloud;

/** Marks each position of `list` whose depth range overlaps no other's in it. */
function isolatedIn(s: Preprocessed, list: ArrayLike<number>): Uint8Array {
  const low = Float64Array.from(list, (k) => s.depth[k]! - rayShapeReach(s.rayShape, k));
  const high = Float64Array.from(list, (k) => s.depth[k]! + rayShapeReach(s.rayShape, k));
  return rangesAlone(low, high);
}

for (const cameraPath of args.camera.split(',')) {
  const full = parseCameraFile(await readFile(cameraPath, 'utf8'));
  const crop = cropAtPixelScale(full, width, height, cameraPath);
  let arrivals = 0, atPixel = 0, inTile = 0;
  const tileMarks = new WeakMap<Int32Array, Uint8Array>();
  const state = new Float64Array(5);
  const order: ReferenceOrder = {
    rayShapes: true,
    blend: (s, list, px, py, out) => {
      let marks = tileMarks.get(list);
      if (!marks) tileMarks.set(list, (marks = isolatedIn(s, list)));
      startPixel(state);
      const met: number[] = [];
      for (let i = 0; i < list.length; i++) {
        const alpha = alphaAt(s, list[i]!, px, py);
        if (alpha < ALPHA_MIN) continue;
        met.push(i);
        if (!blendOne(state, s, list[i]!, alpha)) break;
      }
      const alone = isolatedIn(s, met.map((i) => list[i]!));
      arrivals += met.length;
      met.forEach((i, m) => {
        atPixel += alone[m]!;
        inTile += marks![i]!;
      });
      endPixel(state, out);
    },
  };
  renderReferenceCamera(cloud, crop, { order });
  const camera = cameraPath.split('/').pop()!.replace(/\.json$/, '');
  console.log(JSON.stringify({ camera, width, height, arrivalsPerPixel: arrivals / (width * height), isolatedAtPixel: atPixel / arrivals, isolatedInTile: inTile / arrivals }));
}
