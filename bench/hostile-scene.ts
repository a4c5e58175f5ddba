/**
 * A hostile scene for the frame benchmark: splats that cover the window
 * many times over, as an attacker would make them. Writes an INRIA PLY of
 * --splats splats (default 86,818; tests/support/hostile-cloud.ts), --share
 * of them (default 0.95) balls of σ 10–100 that each cover a 1920×1080
 * window from the camera. Writes beside it a camera file looking at the
 * cube from 4 units away (--width × --height, 60° field of view), for
 * bench-frame's --camera.
 *
 *   node bench-dist/hostile-scene.mjs --out /tmp/hostile.ply [--camera /tmp/hostile.json]
 *     [--splats 86818] [--share 0.95] [--width 1920 --height 1080]
 */
import { writeFileSync } from 'node:fs';
import { writeInriaPly } from '../src/io/writers/inria-ply';
import type { CameraFile } from '../src/app/camera/camera-file';
import { hostileCloud } from '../tests/support/hostile-cloud';
import { commandLine } from './command-line';
import help from './hostile-scene.ts?help';

const { values: args } = commandLine('hostile-scene', help, {
  out: { type: 'string' },
  camera: { type: 'string' },
  splats: { type: 'string', default: '86818' },
  share: { type: 'string', default: '0.95' },
  width: { type: 'string', default: '1920' },
  height: { type: 'string', default: '1080' },
});
if (!args.out) throw new Error('hostile-scene: --out FILE.ply');
const count = Number(args.splats);
const share = Number(args.share);

const cloud = hostileCloud(count, share);
writeFileSync(args.out, writeInriaPly(cloud));

const cameraPath = args.camera ?? args.out.replace(/\.ply$/, '') + '.json';
const camera: CameraFile = { width: Number(args.width), height: Number(args.height), fovy_deg: 60, eye: [0, 0, -4], target: [0, 0, 0], up: [0, -1, 0], background: [0, 0, 0], sh_degree: 0 };
writeFileSync(cameraPath, JSON.stringify(camera, null, 2));
console.log(JSON.stringify({ out: args.out, camera: cameraPath, splats: count, large: share }));
