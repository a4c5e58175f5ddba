/**
 * How the scene files the loaders read are named to the user, from the
 * formats' list: the file picker's accept list and the help text. DOM-free.
 */
import type { SplatFormat } from './format';
import { SPLAT_FORMATS } from './index';

const unique = (items: readonly string[]): string[] => [...new Set(items)];

/** The file picker's accept list: every format's extensions, and those of the files a format needs beside it. */
export const SCENE_FILE_ACCEPT = unique(
  SPLAT_FORMATS.flatMap((format) => [...format.extensions, ...(format.companions?.extensions ?? [])]),
).join(',');

/** A format opened with files beside it, as help text names it: "a SOG meta.json with its images". */
function withCompanions(format: SplatFormat): string[] {
  return format.companions ? [`a ${format.label} with its ${format.companions.what}`] : [];
}

/** The scene files the viewer opens, as help text names them ("a splat file (.ply .splat …, or a SOG meta.json with its images)"). */
export const SCENE_FILES_TEXT = (() => {
  // A format read alone or with its companions (a .gltf, its buffers embedded or not) is named both ways.
  const single = unique(SPLAT_FORMATS.flatMap((format) => (format.companions && !format.companions.alone ? [] : format.extensions)));
  const together = SPLAT_FORMATS.flatMap(withCompanions);
  return `a splat file (${single.join(' ')}${together.length > 0 ? `, or ${together.join(' or ')}` : ''})`;
})();

/** What to open instead of several files none of which names the others ("one splat file at a time, or …"). */
export const OPEN_TOGETHER_TEXT = ['one splat file at a time', ...SPLAT_FORMATS.flatMap(withCompanions)].join(', or ');
