/** Niantic SPZ: gzip-wrapped (versions 2 and 3) or zstd streams (version 4), decompressed by spz/. DOM-free. */
import { isSpz } from '../spz/layout';
import type { SplatFormat } from './format';

export const SPZ: SplatFormat<'spz'> = {
  id: 'spz',
  label: 'SPZ',
  extensions: ['.spz'],
  signature: 'an SPZ magic',
  sniff: (bytes) => (isSpz(bytes) ? 'yes' : 'no'),
  read: async (bytes, options) => {
    const cloud = await (await import('../spz/parse')).parseSpz(bytes, { limits: options.limits });
    options.onProgress?.(1);
    return cloud;
  },
  writer: {
    write: async (cloud) => (await import('../writers/spz')).writeSpz(cloud),
    keeps: 'positions to 1/4096, colour, opacity, scale, rotation and SH in 8 to 10 bits; gzipped, the smallest',
  },
};
