/**
 * replaceFile, the convert command's write: the new bytes take the old
 * file's place whole, with its permissions; a write that fails half way
 * (here ENOSPC, as a full disk gives it, after half the bytes) leaves the
 * old file as it was and no partial file beside it. The command's own test
 * fills a real tmpfs where it may mount one.
 */
import { expect, test } from 'vitest';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replaceFile, type WriteAll } from '../../cli/replace-file';

const bytes = (text: string) => new TextEncoder().encode(text);

test('replaces a file whole, keeping its permissions, and leaves nothing beside it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'splatsort-replace-'));
  const path = join(dir, 'scene.ply');
  writeFileSync(path, 'old');
  chmodSync(path, 0o640);
  await replaceFile(path, bytes('new bytes'));
  expect(readFileSync(path, 'utf8')).toBe('new bytes');
  expect(statSync(path).mode & 0o777).toBe(0o640);
  expect(readdirSync(dir)).toEqual(['scene.ply']);
});

test('a write that fails half way (ENOSPC) leaves the old file as it was, and says so', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'splatsort-replace-'));
  const path = join(dir, 'scene.ply');
  writeFileSync(path, 'the old scene');
  const fullDisk: WriteAll = async (handle, data) => {
    await handle.write(data.subarray(0, data.length >> 1));
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  };
  await expect(replaceFile(path, bytes('a new scene, longer than the old'), fullDisk))
    .rejects.toThrow(/^could not write '.*scene\.ply': ENOSPC: no space left on device, write; '.*scene\.ply' is as it was$/);
  expect(readFileSync(path, 'utf8')).toBe('the old scene');
  expect(readdirSync(dir)).toEqual(['scene.ply']);
});

test('a first write that fails leaves nothing at all', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'splatsort-replace-'));
  const path = join(dir, 'new.ply');
  const failing: WriteAll = async () => {
    throw new Error('EIO: i/o error, write');
  };
  await expect(replaceFile(path, bytes('x'), failing)).rejects.toThrow(/EIO: i\/o error, write; nothing was written$/);
  expect(readdirSync(dir)).toEqual([]);
});
