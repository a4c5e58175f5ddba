/**
 * Files on disk as the Node tools read them (src/io/disk-file.ts), in
 * folders made hostile as an attacker would: a named pipe named as a scene
 * or a world's index, a chunk's meta.json or image linked to /dev/zero, a
 * socket or a pipe in place of an image, a link that leads out of the
 * world's or the scene's folder, a file whose size lies (/proc) or that
 * grows while it is read, and one past its kind's bound. Each is refused
 * at once, naming the file and saying what it is, without reading it
 * (before the fix, /dev/zero behind a chunk grew the render command to
 * 23.5 GB, and a pipe waited for ever); links that stay in the folder are
 * followed.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDiskFile, readDiskFile } from '../../src/io/disk-file';
import { SplatLimitError } from '../../src/io/load-limits';
import { openWorld } from '../../src/io/lod/world-files';
import { fileSize, loadSceneFile, nodeFileSource } from '../../src/io/node-scene-source';
import { SplatFormatError } from '../../src/io/format-error';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { makeDefaultScene } from '../support/default-scene';
import { writeDiskWorld } from '../support/disk-world';
import { thinnedScene } from '../support/thinned-scene';

let root: string;
/** A world of two chunks, copied for each case and then made hostile. */
let goodWorld: string;
let chunks: SplatCloud[];
const servers: Server[] = [];

/** A copy of the good world at `name`, the path of its index. */
function worldCopy(name: string): string {
  cpSync(goodWorld, join(root, name), { recursive: true });
  return join(root, name, 'lod-meta.json');
}

/** Puts a link to `target` at `path` in place of what was there. */
function linkInPlace(path: string, target: string): void {
  rmSync(path, { recursive: true, force: true });
  symlinkSync(target, path);
}

function fifoAt(path: string): void {
  rmSync(path, { force: true });
  execFileSync('mkfifo', [path]);
}

async function socketAt(path: string): Promise<void> {
  rmSync(path, { force: true });
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
}

const chunkRead = async (index: string, file: number): Promise<unknown> => (await openWorld(nodeFileSource(index))).readChunk(file);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'splatsort-disk-files-'));
  // Two chunks of a few hundred splats each, of different counts.
  const scene = makeDefaultScene();
  chunks = [thinnedScene(scene, 64), thinnedScene(scene, 48)];
  goodWorld = join(root, 'good');
  await writeDiskWorld(goodWorld, chunks);
}, 60_000);

afterAll(() => {
  for (const server of servers) server.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a file that is not a regular file', () => {
  it('a named pipe named as a scene, or as a world\'s index, is refused at once by name, not waited on', async () => {
    const scene = join(root, 'pipe.ply');
    fifoAt(scene);
    const refusal = /^'.*pipe\.ply' is a named pipe \(FIFO\), not a scene file: only regular files are read$/;
    await expect(fileSize(scene)).rejects.toThrow(refusal);
    await expect(loadSceneFile(scene)).rejects.toThrow(refusal);
    const index = worldCopy('pipe-index');
    fifoAt(index);
    await expect(openWorld(nodeFileSource(index))).rejects.toThrow(/^'.*pipe-index\/lod-meta\.json' is a named pipe \(FIFO\), not a scene file/);
  }, 10_000);

  it('a chunk\'s meta.json or image linked to /dev/zero is refused by name and kind, before a byte is read', async () => {
    const index = worldCopy('zero');
    linkInPlace(join(root, 'zero', '0_0', 'meta.json'), '/dev/zero');
    linkInPlace(join(root, 'zero', '0_1', 'means_l.webp'), '/dev/zero');
    const meta = await chunkRead(index, 0).catch((error: unknown) => error);
    expect(meta).toBeInstanceOf(SplatFormatError);
    expect((meta as Error).message).toMatch(/^chunk 0_0\/meta\.json: '.*zero\/0_0\/meta\.json' is a link to '\/dev\/zero', a character device, not a file: only regular files are read$/);
    await expect(chunkRead(index, 1)).rejects.toThrow(/^chunk 0_1\/meta\.json: .*'.*zero\/0_1\/means_l\.webp' is a link to '\/dev\/zero', a character device, not a file/);
  }, 10_000);

  it('a pipe or a socket in place of a chunk\'s image, a folder in place of its meta.json, are refused by what they are', async () => {
    const index = worldCopy('odd');
    fifoAt(join(root, 'odd', '0_0', 'quats.webp'));
    await socketAt(join(root, 'odd', '0_1', 'scales.webp'));
    await expect(chunkRead(index, 0)).rejects.toThrow(/^chunk 0_0\/meta\.json: .*'.*odd\/0_0\/quats\.webp' is a named pipe \(FIFO\), not a file/);
    await expect(chunkRead(index, 1)).rejects.toThrow(/^chunk 0_1\/meta\.json: .*'.*odd\/0_1\/scales\.webp' is a socket, not a file/);
    rmSync(join(root, 'odd', '0_1', 'meta.json'));
    mkdirSync(join(root, 'odd', '0_1', 'meta.json'));
    await expect(chunkRead(index, 1)).rejects.toThrow(/^chunk 0_1\/meta\.json: '.*odd\/0_1\/meta\.json' is a folder, not a file/);
  }, 10_000);

  it('a SOG scene\'s image linked to /dev/zero is refused by name, where the scene\'s own images load', async () => {
    const meta = join(goodWorld, '0_0', 'meta.json');
    expect((await loadSceneFile(meta)).cloud.count).toBe(chunks[0]!.count);
    worldCopy('zero-scene');
    linkInPlace(join(root, 'zero-scene', '0_0', 'sh0.webp'), '/dev/zero');
    await expect(loadSceneFile(join(root, 'zero-scene', '0_0', 'meta.json'))).rejects.toThrow(/'.*zero-scene\/0_0\/sh0\.webp' is a link to '\/dev\/zero', a character device, not a file/);
  }, 10_000);
});

describe('a link that leads out of the folder', () => {
  it('a chunk\'s folder linked to a copy outside the world is refused by name, as the same path by URL is; a link that stays inside is followed', async () => {
    const index = worldCopy('out');
    cpSync(join(goodWorld, '0_0'), join(root, 'elsewhere'), { recursive: true });
    linkInPlace(join(root, 'out', '0_0'), join(root, 'elsewhere'));
    await expect(chunkRead(index, 0)).rejects.toThrow(/^chunk 0_0\/meta\.json: '.*out\/0_0\/meta\.json' leads out of its folder: it is '.*elsewhere\/meta\.json' once links are resolved, and only files in '.*out' or below are read$/);
    // Inside: the chunk's folder moved within the world, a link left in its place.
    cpSync(join(goodWorld, '0_1'), join(root, 'out', 'moved'), { recursive: true });
    linkInPlace(join(root, 'out', '0_1'), join(root, 'out', 'moved'));
    expect(((await chunkRead(index, 1)) as { cloud: SplatCloud }).cloud.count).toBe(chunks[1]!.count);
  });

  it('a SOG scene\'s image linked to a file outside its folder is refused by name', async () => {
    worldCopy('out-scene');
    linkInPlace(join(root, 'out-scene', '0_0', 'quats.webp'), join(root, 'good', '0_1', 'quats.webp'));
    await expect(loadSceneFile(join(root, 'out-scene', '0_0', 'meta.json'))).rejects.toThrow(/'.*out-scene\/0_0\/quats\.webp' leads out of its folder/);
  });
});

describe('a file read with its bound', () => {
  it('a file that says a size it does not hold (/proc) is refused at the first byte past that size', async () => {
    await expect(readDiskFile('/proc/self/status', { maxBytes: 1 << 20 })).rejects.toThrow(/^'\/proc\/self\/status' holds more than the 0 bytes its size said/);
  });

  it('a file that grows after its check stops at the size it had: the byte past it refuses it', async () => {
    const path = join(root, 'growing.bin');
    writeFileSync(path, new Uint8Array(3 << 20));
    const { size, chunks: pieces } = await openDiskFile(path, { maxBytes: 4 << 20 });
    expect(size).toBe(3 << 20);
    appendFileSync(path, new Uint8Array(2 << 20));
    let read = 0;
    const reading = (async () => {
      for await (const piece of pieces) read += piece.length;
    })();
    await expect(reading).rejects.toThrow(/growing\.bin' holds more than the 3,145,728 bytes its size said/);
    expect(read).toBe(3 << 20);
  });

  it('a file past its kind\'s bound is refused before it is read, and a missing one is named', async () => {
    const path = join(root, 'large.bin');
    writeFileSync(path, new Uint8Array(1001));
    const error = await readDiskFile(path, { maxBytes: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SplatLimitError);
    expect((error as Error).message).toMatch(/^'.*large\.bin' is 1,001 bytes: more than the 1,000 it can take$/);
    expect(await readDiskFile(path, { maxBytes: 1001 })).toHaveLength(1001);
    await expect(readDiskFile(join(root, 'nothing.bin'), { maxBytes: 10 })).rejects.toThrow(/^There is no file at '.*nothing\.bin'$/);
  });
});
