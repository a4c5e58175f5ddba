/** PlayCanvas SOG bundle: a zip of meta.json and its images, whose directory is at its end, so it is gathered whole. DOM-free. */
import { isZip } from '../zip-directory';
import type { SplatFormat } from './format';

export const SOG_BUNDLE: SplatFormat<'sog'> = {
  id: 'sog',
  label: 'SOG bundle',
  extensions: ['.sog'],
  signature: 'a zip (.sog) signature',
  sniff: (bytes) => (isZip(bytes) ? 'yes' : 'no'),
  read: async (bytes, options) => (await import('../sog/bundle')).parseSogBundle(bytes, options),
};
