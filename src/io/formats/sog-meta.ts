/**
 * An unbundled PlayCanvas SOG scene: its meta.json, opened by that name,
 * and the .webp images it names, read from beside it (files opened with
 * it, or fetched from beside its URL: scene-source.ts). DOM-free.
 */
import type { SplatFormat } from './format';

export const SOG_META: SplatFormat<'sog-meta'> = {
  id: 'sog-meta',
  label: 'SOG meta.json',
  extensions: ['.json'],
  fileName: 'meta.json',
  companions: { extensions: ['.webp'], what: 'images' },
};
