/**
 * How a world's index is known by its name: light enough for the page to
 * import at once, without the world's readers and decoders (world-files.ts,
 * loaded when a world opens). DOM-free.
 */
import { lastPathSegment } from '../path-name';

/** Whether `name` (a file name, path or URL) names a world's index: its last segment is lod-meta.json, in any letter case. */
export function isWorldIndexName(name: string): boolean {
  return lastPathSegment(name).toLowerCase() === 'lod-meta.json';
}
