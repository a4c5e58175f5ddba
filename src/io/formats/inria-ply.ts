/**
 * INRIA 3D Gaussian Splatting PLY, the format of trainers' output: a PLY
 * whose vertex rows hold the splats' parameters, decoded row by row while
 * the file arrives (ply-stream.ts). DOM-free.
 */
import type { SplatFormat } from './format';

export const INRIA_PLY: SplatFormat<'ply'> = {
  id: 'ply',
  label: 'INRIA PLY',
  extensions: ['.ply'],
  writer: {
    write: async (cloud) => (await import('../writers/inria-ply')).writeInriaPly(cloud),
    keeps: 'every value, exactly, SH included, and its anti-aliasing (Mip-Splatting\'s or gsplat\'s)',
  },
};
