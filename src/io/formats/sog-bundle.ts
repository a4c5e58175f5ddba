/** PlayCanvas SOG bundle: a zip of meta.json and its images, whose directory is at its end, so it is gathered whole. DOM-free. */
import type { SplatFormat } from './format';

export const SOG_BUNDLE: SplatFormat<'sog'> = {
  id: 'sog',
  label: 'SOG bundle',
  extensions: ['.sog'],
};
