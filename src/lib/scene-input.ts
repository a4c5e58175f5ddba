/**
 * What a viewer opens for each kind of scene input, and the name it goes
 * by in messages: an address resolved against the page (refused, saying
 * why, when it is not an http, https or blob URL), files (named after the
 * main one: a SOG meta.json among its images), bytes, or a drop's
 * DataTransfer, whose folder entries are taken at once (the browser
 * empties them once the drop event is handled).
 */
import { mainFileOf } from '../io/formats/file-names';
import { lastPathSegment } from '../io/path-name';
import { resolveSceneUrl } from '../io/scene-url';
import { droppedFolderEntries, droppedName, type DroppedEntry } from './dropped-files';
import type { SceneInput } from './viewer-api';

export type OpenedInput =
  | { kind: 'scene'; opened: File[] | string; name: string }
  | { kind: 'folder'; entries: DroppedEntry[]; name: string }
  | { kind: 'refused'; error: unknown; name: string };

/** An address or a text, cut to a length that reads in a message title. */
export function shortName(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** How opened files are named in messages: the file, or the main one of those opened together. */
export function sceneName(files: readonly File[]): string {
  return mainFileOf(files)?.name ?? `${files.length} files`;
}

export function openedInput(source: SceneInput, base: string): OpenedInput {
  if (typeof source === 'string' || source instanceof URL) {
    const address = String(source);
    try {
      if (address.trim() === '') throw new Error('the scene address is empty: it names no scene');
      const url = resolveSceneUrl(address, base);
      return { kind: 'scene', opened: url, name: lastPathSegment(url) || url };
    } catch (error) {
      return { kind: 'refused', error, name: address.trim() === '' ? 'the scene' : shortName(address) };
    }
  }
  if (source instanceof ArrayBuffer) return { kind: 'scene', opened: [new File([source], 'scene')], name: 'scene' };
  if (typeof DataTransfer !== 'undefined' && source instanceof DataTransfer) {
    const entries = droppedFolderEntries(source);
    if (entries) return { kind: 'folder', entries, name: droppedName(entries) };
    const files = [...source.files];
    if (files.length === 0) return { kind: 'refused', error: new Error('the drop held no files'), name: 'the drop' };
    return { kind: 'scene', opened: files, name: sceneName(files) };
  }
  const files = Array.isArray(source) ? source : [source as File];
  if (files.length === 0) return { kind: 'refused', error: new Error('no files were given'), name: 'the scene' };
  return { kind: 'scene', opened: files, name: sceneName(files) };
}
