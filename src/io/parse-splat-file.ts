/**
 * Loads any supported splat file held in memory into a SplatCloud, the
 * format told by detection over the formats' list (formats/). DOM-free.
 */
import type { SplatCloud } from '../scene/splat-cloud';
import { SplatFormatError } from './format-error';
import { detectFormat } from './formats/detect';
import type { ReadOptions, SplatFormat } from './formats/format';
import type { SplatFormatId } from './formats/index';
import { validateSplatCloud } from './validate-splats';

export type SplatFileFormat = SplatFormatId;

/**
 * onProgress, and what the scene may cost (limits, default
 * DEFAULT_LOAD_LIMITS): each decoder checks the count it is told against it
 * before allocating, and SPZ and SOG bound what they decompress by it.
 */
export type ParseSplatFileOptions = ReadOptions;

/**
 * The format of a whole splat file: by content first (a "ply" magic line
 * means PLY whatever the name, its header's elements tell INRIA from
 * compressed; the SPZ magic or gzip; a zip is a SOG bundle; a ksplat header
 * consistent with the file's length), then by name (`.splat`, which has no
 * header; `.ksplat`; `meta.json`). Throws SplatFormatError when neither says.
 */
export function detectSplatFormat(bytes: Uint8Array, name?: string): SplatFileFormat {
  return detectFormat(bytes, name).id;
}

/** The error for a format that is read with the files beside it, given its main file alone. */
function needsCompanions(format: SplatFormat): SplatFormatError {
  const { extensions, what } = format.companions!;
  return new SplatFormatError(
    `A ${format.label} is read together with its ${extensions.join(' ')} ${what}: open them with it, not the ${format.fileName ?? 'file'} alone`,
  );
}

/**
 * Parses any supported splat file held in memory (what the streaming loader
 * calls for the formats it gathers) and checks the decoded values
 * (validateSplatCloud). Asynchronous: a format's decoder is loaded when
 * first needed, and SPZ and SOG decompress their streams and images.
 */
export async function loadSplatFile(
  buffer: ArrayBuffer | Uint8Array,
  name?: string,
  options: ParseSplatFileOptions = {},
): Promise<SplatCloud> {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  const format = detectFormat(bytes, name);
  if (!format.read) throw needsCompanions(format);
  const cloud = await format.read(bytes, options);
  validateSplatCloud(cloud);
  return cloud;
}
