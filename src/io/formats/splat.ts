/**
 * antimatter15 .splat: bare 32-byte records with no header, so it is known
 * by its name alone, and decoded record by record while it arrives
 * (splat-format.ts). DOM-free.
 */
import type { SplatFormat } from './format';

export const SPLAT: SplatFormat<'splat'> = {
  id: 'splat',
  label: '.splat',
  extensions: ['.splat'],
  writer: {
    write: async (cloud) => (await import('../writers/splat')).writeSplat(cloud),
    keeps: 'positions and scales exactly; colour, opacity and rotation in 8 bits; no SH',
  },
};
