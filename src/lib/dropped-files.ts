/**
 * The files inside a dropped folder, each with its path from the drop
 * ("world/0_0/meta.json"): a Streamed SOG world is a folder tree whose
 * index names its chunks by path, which a drop's flat file list loses.
 * Walks the entries of the File System API (DataTransferItem's
 * webkitGetAsEntry) without recursion, and stops at MAX_FOLDER_FILES.
 */
import { SplatLimitError } from '../io/load-limits';
import { isWorldIndexName } from '../io/lod/world-name';
import type { SceneSource } from '../io/source-bytes';
import { folderSource, MAX_FOLDER_FILES, type FolderEntry } from '../io/web-scene-sources';

/** The parts of FileSystemEntry, FileSystemFileEntry and FileSystemDirectoryEntry a walk uses. */
export interface DroppedEntry {
  readonly isDirectory: boolean;
  readonly name: string;
  readonly fullPath: string;
  file?(onFile: (file: File) => void, onError?: (error: DOMException) => void): void;
  createReader?(): { readEntries(onEntries: (entries: DroppedEntry[]) => void, onError?: (error: DOMException) => void): void };
}

/** Files read from their entries at a time: each is a callback into the browser. */
const FILES_AT_ONCE = 64;

const tooMany = (maxFiles: number): SplatLimitError =>
  new SplatLimitError(`The folder dropped holds more than ${maxFiles.toLocaleString('en-US')} files and folders: no world has that many, so none of it was opened`);

/**
 * Every file under the dropped entries (files and folders), with its path
 * from the drop, '/'-separated without a leading slash. Refuses (a
 * SplatLimitError) a drop of more than `maxFiles` entries before reading
 * any file: files and folders both count, so a tree of empty folders ends
 * there too.
 */
export async function droppedFiles(roots: readonly DroppedEntry[], maxFiles = MAX_FOLDER_FILES): Promise<FolderEntry[]> {
  const files: DroppedEntry[] = [];
  const folders: DroppedEntry[] = [];
  let seen = 0;
  const add = (entry: DroppedEntry): void => {
    if (++seen > maxFiles) throw tooMany(maxFiles);
    (entry.isDirectory ? folders : files).push(entry);
  };
  roots.forEach(add);
  while (folders.length > 0) {
    const reader = folders.pop()!.createReader!();
    // readEntries gives a folder's entries a batch at a time (100 in Chromium); an empty batch ends it.
    for (;;) {
      const batch = await new Promise<DroppedEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      batch.forEach(add);
    }
  }
  const entries: FolderEntry[] = [];
  for (let at = 0; at < files.length; at += FILES_AT_ONCE) {
    entries.push(...await Promise.all(files.slice(at, at + FILES_AT_ONCE).map(async (entry) => ({
      path: (entry.fullPath || entry.name).replace(/^\/+/, ''),
      file: await new Promise<File>((resolve, reject) => entry.file!(resolve, reject)),
    }))));
  }
  return entries;
}

/**
 * What a dropped folder holds: a Streamed SOG world (a lod-meta.json in it;
 * the shallowest one is the world's index) as a source over the folder's
 * files, else its files, to be opened as if dropped one by one (a SOG
 * scene's folder).
 */
export async function readDroppedFolder(roots: readonly DroppedEntry[]): Promise<{ world: SceneSource; entries: FolderEntry[] } | { files: File[] }> {
  const entries = await droppedFiles(roots);
  if (entries.some((entry) => isWorldIndexName(entry.path))) return { world: folderSource(entries), entries };
  return { files: entries.map((entry) => entry.file) };
}

/**
 * What a drop of folders is called in messages and the panel: the folder's
 * own name when one was dropped (a SOG scene's folder, a world's), not the
 * name of the file inside it that is read first.
 */
export function droppedName(roots: readonly DroppedEntry[]): string {
  const folders = roots.filter((entry) => entry.isDirectory);
  return folders.length === 1 ? folders[0]!.name : `${roots.length} dropped items`;
}

/**
 * The entries of a drop, taken while its event is being handled (the
 * browser empties the items after it): null when no folder was dropped,
 * so the plain file list serves.
 */
export function droppedFolderEntries(transfer: DataTransfer): DroppedEntry[] | null {
  const entries = [...transfer.items].flatMap((item) => {
    const entry = item.kind === 'file' ? item.webkitGetAsEntry() : null;
    return entry ? [entry as unknown as DroppedEntry] : [];
  });
  return entries.some((entry) => entry.isDirectory) ? entries : null;
}
