/**
 * antimatter15 .splat: bare 32-byte records with no header, so it is known
 * by its name alone, and decoded record by record while it arrives
 * (splat-format.ts). DOM-free.
 */
import { parseSplatFormat, SplatRecordStream } from '../splat-format';
import type { SplatFormat } from './format';

export const SPLAT: SplatFormat<'splat'> = {
  id: 'splat',
  label: '.splat',
  extensions: ['.splat'],
  byName: true,
  read: (bytes, options) => parseSplatFormat(bytes, options),
  stream: (start, options) => {
    const stream = new SplatRecordStream(options);
    stream.push(start);
    return stream;
  },
};
