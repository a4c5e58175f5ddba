/**
 * A glTF buffer kept in a file of its own (a .gltf's scene.bin), read
 * through the scene source's companion reader: fetched from beside the
 * document's URL, or found among the files opened with it
 * (web-scene-sources.ts, node-scene-source.ts). Its uri must be a relative
 * path into the document's folder or below (relativePathError); the file
 * read is bounded by the byte length the buffer declares, and a file that
 * cannot be had is named in the error. DOM-free.
 */
import type { CompanionReader } from '../formats/format';
import { SplatFormatError } from '../format-error';
import { SplatLimitError } from '../load-limits';
import { relativePathError } from '../path-name';

/** Bytes a file may hold past the length its buffer declares: writers pad buffers to 4 bytes. */
const PADDING = 3;

/** `uri` shortened for messages. */
const shown = (uri: string): string => JSON.stringify(uri.length > 60 ? `${uri.slice(0, 57)}...` : uri);

/**
 * The bytes of the file a buffer's `uri` names, and that file's name. At
 * most `declared` bytes (and its padding) are read; fewer are returned as
 * they are, for the caller to refuse.
 */
export async function readBufferFile(
  uri: string, declared: number, where: string, companion: CompanionReader | undefined,
): Promise<{ bytes: Uint8Array; name: string }> {
  const why = relativePathError(uri, 'the glTF file');
  if (why) throw new SplatFormatError(`glTF ${where}'s uri ${shown(uri)} ${why}: only files beside it, or in folders below it, are read`);
  const name = decodeURIComponent(uri);
  // Decoded, these would read as a URL's query, fragment or escape where the name is fetched.
  if (/[?#%]/.test(name)) throw new SplatFormatError(`glTF ${where}'s uri ${shown(uri)} names a file with "?", "#" or "%" in its name, which is not read`);
  if (!companion) {
    // Bytes alone (a .glb, or a .gltf's bytes handed over): nothing beside them can be had.
    throw new SplatFormatError(`glTF ${where} is the separate file ${shown(name)}, but only the glTF file's own bytes were given: open a .gltf together with the files its buffers name`);
  }
  try {
    return { bytes: await companion(name, declared + PADDING), name };
  } catch (error) {
    // A cancel stays a cancel, and a file past the bound a limit (its message names the file).
    if (error instanceof SplatLimitError || (error as { name?: unknown } | null)?.name === 'AbortError') throw error;
    const message = `glTF ${where} is the file ${shown(name)}, which could not be read: ${error instanceof Error ? error.message : String(error)}`;
    throw error instanceof SplatFormatError ? new SplatFormatError(message) : new Error(message, { cause: error });
  }
}
