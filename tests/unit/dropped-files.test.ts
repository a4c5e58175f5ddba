/**
 * A dropped folder's files with their paths (src/lib/dropped-files.ts),
 * walked over entries shaped as the browser's File System API gives them:
 * folders read in batches, files through a callback.
 */
import { describe, expect, it } from 'vitest';
import { SplatLimitError } from '../../src/io/load-limits';
import { folderSource } from '../../src/io/web-scene-sources';
import { droppedFiles, droppedName, readDroppedFolder, type DroppedEntry } from '../../src/lib/dropped-files';

/** A tree of entries: a string is a file's text, an object a folder. Folders hand out their entries two at a time. */
type Tree = { [name: string]: string | Tree };

function entryOf(name: string, value: string | Tree, parent: string): DroppedEntry {
  const fullPath = `${parent}/${name}`;
  if (typeof value === 'string') {
    return { isDirectory: false, name, fullPath, file: (onFile) => setTimeout(() => onFile(new File([value], name))) };
  }
  return {
    isDirectory: true, name, fullPath,
    createReader: () => {
      const children = Object.entries(value).map(([child, v]) => entryOf(child, v, fullPath));
      return { readEntries: (onEntries) => setTimeout(() => onEntries(children.splice(0, 2))) };
    },
  };
}

describe('a dropped folder', () => {
  it('yields every file under it with its path from the drop', async () => {
    const world: Tree = {
      'lod-meta.json': 'index', '0_0': { 'meta.json': 'a', 'means_l.webp': 'b', 'means_u.webp': 'c' }, '1_0': { 'meta.json': 'd', deeper: { 'x.webp': 'e' } },
    };
    const entries = await droppedFiles([entryOf('world', world, ''), entryOf('notes.txt', 'f', '')]);
    const paths = entries.map((e) => e.path).sort();
    expect(paths).toEqual([
      'notes.txt', 'world/0_0/means_l.webp', 'world/0_0/means_u.webp', 'world/0_0/meta.json', 'world/1_0/deeper/x.webp', 'world/1_0/meta.json', 'world/lod-meta.json',
    ]);
    const index = entries.find((e) => e.path === 'world/lod-meta.json')!;
    expect(await index.file.text()).toBe('index');
    // What the page hands the viewer: the world's index, with its chunks found beside it.
    const source = folderSource(entries);
    expect(source.name).toBe('world/lod-meta.json');
    expect(new TextDecoder().decode(await source.companion('1_0/deeper/x.webp', 10))).toBe('e');
  });

  it('holds a world where a lod-meta.json is in it, else files to open as dropped', async () => {
    const world = await readDroppedFolder([entryOf('w', { 'lod-meta.json': '{}', '0_0': { 'meta.json': '{}' } }, '')]);
    expect('world' in world && world.world.name).toBe('w/lod-meta.json');
    const scene = await readDroppedFolder([entryOf('garden', { 'meta.json': '{}', 'means_l.webp': 'x' }, '')]);
    expect('files' in scene && scene.files.map((f) => f.name).sort()).toEqual(['means_l.webp', 'meta.json']);
  });

  it("is named after the folder dropped, not the file in it read first", () => {
    expect(droppedName([entryOf('garden', { 'meta.json': '{}', 'means_l.webp': 'x' }, '')])).toBe('garden');
    expect(droppedName([entryOf('w', { 'lod-meta.json': '{}' }, ''), entryOf('notes.txt', 'x', '')])).toBe('w');
    expect(droppedName([entryOf('a', {}, ''), entryOf('b', {}, '')])).toBe('2 dropped items');
  });

  it('stops at the bound, counting folders too, before reading any file', async () => {
    const folders: Tree = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`d${i}`, {}]));
    await expect(droppedFiles([entryOf('big', folders, '')], 10)).rejects.toThrow(SplatLimitError);
    await expect(droppedFiles([entryOf('big', folders, '')], 10)).rejects.toThrow(/more than 10 files and folders/);
    // Files of a folder too large are never read.
    let read = 0;
    const files: Tree = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`f${i}.webp`, 'x']));
    const entry = entryOf('big', files, '');
    const reader = entry.createReader!;
    entry.createReader = () => {
      const inner = reader();
      return { readEntries: (onEntries, onError) => inner.readEntries((batch) => onEntries(batch.map((b) => ({ ...b, file: (f: (file: File) => void) => { read++; b.file!(f); } }))), onError) };
    };
    await expect(droppedFiles([entry], 10)).rejects.toThrow(/more than 10 files/);
    expect(read).toBe(0);
    expect(await droppedFiles([entryOf('big', files, '')], 12)).toHaveLength(11);
  });
});
