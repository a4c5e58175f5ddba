/**
 * How the page names files it is handed, in messages and the panel. DOM-free.
 */
import { mainFileOf } from '../io/formats/detect';

/** How opened files are named in messages: the file, or the main one of those opened together (a SOG's meta.json among its images). */
export function sceneName(files: File[]): string {
  return mainFileOf(files)?.name ?? `${files.length} files`;
}
