/**
 * GaussianSplats3D .ksplat: no magic, so it is known by a header whose
 * counts agree with each other and the file's length (a file still arriving
 * shows only its version bytes), or by its name. DOM-free.
 */
import { looksLikeKsplat, startsLikeKsplat } from '../ksplat/layout';
import type { SplatFormat } from './format';

export const KSPLAT: SplatFormat<'ksplat'> = {
  id: 'ksplat',
  label: '.ksplat',
  extensions: ['.ksplat'],
  signature: 'a ksplat header',
  sniff: (bytes, { partial }) => ((partial ? startsLikeKsplat(bytes) : looksLikeKsplat(bytes)) ? 'yes' : 'no'),
  // A damaged file named .ksplat gets the ksplat reader's message rather than "unrecognised".
  byName: true,
  read: async (bytes, options) => (await import('../ksplat/decode')).parseKsplat(bytes, options),
};
