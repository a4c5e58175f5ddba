/**
 * Files dropped or picked together as a scene source (source-bytes.ts):
 * one splat file, or the main file of a format with companions (a SOG
 * meta.json among its images). The load worker's; it knows the formats'
 * names, which the other sources (web-scene-sources.ts) do not. DOM-free.
 */
import { SplatFormatError } from './format-error';
import { formatWithCompanionsFor } from './formats/detect';
import { mainFileOf } from './formats/file-names';
import { SPLAT_FORMATS } from './formats/index';
import { OPEN_TOGETHER_TEXT } from './formats/scene-files';
import { streamChunks, type SceneSource } from './source-bytes';
import { readFileBounded } from './web-scene-sources';

/**
 * Files opened together: one splat file, or the main file of a format with
 * companions (a SOG meta.json) and the files it names, found among the
 * others by name.
 */
export function fileSource(files: readonly File[]): SceneSource {
  const main = mainFileOf(files);
  if (!main) {
    const mains = SPLAT_FORMATS.flatMap((format) => (format.companions ? [`a ${format.label}`] : []));
    throw new SplatFormatError(`${files.length} files were given and none is ${mains.join(' or ')}: open ${OPEN_TOGETHER_TEXT}`);
  }
  const byName = new Map(files.map((file) => [file.name.toLowerCase(), file]));
  return {
    name: main.name,
    stage: 'read',
    open: async () => ({ chunks: streamChunks(main.stream()), totalBytes: main.size }),
    companion: async (name, maxBytes, signal) => {
      const file = byName.get(name.toLowerCase());
      if (file) return readFileBounded(file, maxBytes, signal);
      const companions = formatWithCompanionsFor(main.name)?.companions;
      const them = companions ? `its ${companions.extensions.join(' ')} ${companions.what}` : 'the files it names';
      throw new Error(files.length === 1
        ? `only ${main.name} was opened: open it together with ${them}`
        : `it was not among the ${files.length} files opened with ${main.name}`);
    },
  };
}
