/**
 * An unbundled PlayCanvas SOG scene: its meta.json, opened by that name,
 * and the .webp images it names, read from beside it (files opened with
 * it, or fetched from beside its URL: scene-source.ts). DOM-free.
 */
import { SOG_META_MAX_BYTES } from '../sog/meta';
import type { SplatFormat } from './format';

export const SOG_META: SplatFormat<'sog-meta'> = {
  id: 'sog-meta',
  label: 'SOG meta.json',
  extensions: ['.json'],
  fileName: 'meta.json',
  byName: true,
  companions: {
    extensions: ['.webp'],
    what: 'images',
    maxMainBytes: SOG_META_MAX_BYTES,
    read: async (meta, companion, options) => (await import('../sog/decode')).parseSog(meta, companion, options),
  },
};
