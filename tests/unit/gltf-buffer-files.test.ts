/**
 * A .gltf whose buffers are files beside it, opened as the viewer opens
 * one: by its URL (the buffers fetched from beside it), from files dropped
 * together, or from disk; one with its buffers embedded, opened alone. Only
 * the buffers the splats use are read (not its images); a missing buffer
 * file is named; a buffer declared far larger than its file, a file far
 * larger than its buffer, and a uri that leads out of the .gltf's folder or
 * to another server are refused, the last before anything is asked for.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SplatFormatError } from '../../src/io/format-error';
import { parseGltf } from '../../src/io/gltf/parse';
import { SplatLimitError } from '../../src/io/load-limits';
import { loadSceneFile } from '../../src/io/node-scene-source';
import { loadScene, type LoadedScene } from '../../src/io/scene-source';
import { fileSource } from '../../src/io/file-scene-source';
import { urlSource } from '../../src/io/web-scene-sources';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { expectSameCloud } from '../support/clouds';
import { buildGltf, FLOAT, glb, gltfNaming, gltfText, SPLAT_EXTENSION, splatAttributes, type Built } from '../support/gltf-files';
import { sendFile, serveLocally, type LocalServer } from '../support/local-server';

let built: Built;
/** The scene as its .glb reads. */
let expected: SplatCloud;
let dir: string;
let server: LocalServer;
/** Paths the server was asked for, in order. */
const asked: string[] = [];

const file = (bytes: Uint8Array | string, name: string): File => new File([bytes as Uint8Array<ArrayBuffer>], name);

/** Lays `files` (path → bytes) in a fresh folder `folder` of the served directory. */
function lay(folder: string, files: Record<string, Uint8Array>): string {
  for (const [path, bytes] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, folder, path)), { recursive: true });
    writeFileSync(join(dir, folder, path), bytes);
  }
  return join(dir, folder);
}

/**
 * The built scene with the bytes of buffer view 0 (its positions) moved to
 * a second buffer, the file `uri`: a .gltf of two buffer files.
 */
function twoBuffers(uri: string): { json: Record<string, any>; first: Uint8Array; second: Uint8Array } {
  const json = structuredClone(built.json);
  const view = json.bufferViews[0];
  const second = built.bin.slice(view.byteOffset ?? 0, (view.byteOffset ?? 0) + view.byteLength);
  json.buffers.push({ uri, byteLength: second.length });
  json.bufferViews[0] = { ...view, buffer: 1, byteOffset: 0 };
  return { json, first: built.bin, second };
}

beforeAll(async () => {
  const triangle = { name: 'POSITION', type: 'VEC3' as const, componentType: FLOAT, data: new Float32Array(9) };
  built = await buildGltf([{ attributes: splatAttributes(40, 2), splat: SPLAT_EXTENSION }, { attributes: [triangle], mode: 4 }]);
  // An image the viewer never reads: its file is not there, and must not be asked for.
  built.json.images = [{ uri: 'texture.png' }];
  expected = await parseGltf(glb(built.json, built.bin));
  dir = mkdtempSync(join(tmpdir(), 'splatsort-gltf-'));
  server = await serveLocally((path, response) => {
    asked.push(path);
    sendFile(response, join(dir, path));
  });
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Loads the folder's scene.gltf by URL: the scene or the error, and the paths asked for, relative to the folder. */
async function byUrl(folder: string): Promise<{ loaded?: LoadedScene; error?: Error; asked: string[] }> {
  asked.length = 0;
  const loading = loadScene(urlSource(`${server.base}/${folder}/scene.gltf`));
  const outcome = await loading.then((loaded) => ({ loaded }), (error: unknown) => ({ error: error as Error }));
  return { ...outcome, asked: asked.map((path) => path.replace(`/${folder}/`, '')) };
}

describe('a .gltf with its buffers in files beside it', () => {
  it('opens by URL, fetching from beside it the buffer files its splats use and nothing else', async () => {
    const { json, first, second } = twoBuffers('positions/part%201.bin');
    json.buffers[0].uri = 'scene.bin';
    const text = new TextEncoder().encode(JSON.stringify(json));
    lay('garden', { 'scene.gltf': text, 'scene.bin': first, 'positions/part 1.bin': second });
    const { loaded, asked: paths } = await byUrl('garden');
    expectSameCloud(loaded!.cloud, expected);
    expect(paths.sort()).toEqual(['positions/part 1.bin', 'scene.bin', 'scene.gltf']);
    expect(loaded!.bytes).toBe(text.length + first.length + second.length);
    expect(loaded!.warnings).toContain('Not Gaussian splats, so not shown: meshes[0].primitives[1] (triangles)');
  });

  it('opens from files dropped together, in either order, and hands on its warnings', async () => {
    const text = gltfNaming(built.json, 'scene.bin');
    for (const files of [[file(text, 'scene.gltf'), file(built.bin, 'scene.bin')], [file(built.bin, 'Scene.BIN'), file(text, 'scene.gltf')]]) {
      const loaded = await loadScene(fileSource(files));
      expectSameCloud(loaded.cloud, expected);
      expect(loaded.warnings).toEqual(['Not Gaussian splats, so not shown: meshes[0].primitives[1] (triangles)']);
    }
  });

  it('opens from disk, a percent-encoded uri naming the file as it is spelt', async () => {
    const folder = lay('disk', { 'scene.gltf': gltfNaming(built.json, 'my%20scene.bin'), 'my scene.bin': built.bin });
    expectSameCloud((await loadSceneFile(join(folder, 'scene.gltf'))).cloud, expected);
  });

  it('opens alone when its buffers are embedded (data: URIs)', async () => {
    const loaded = await loadScene(fileSource([file(gltfText(built.json, built.bin), 'scene.gltf')]));
    expectSameCloud(loaded.cloud, expected);
  });
});

describe('a buffer file missing, or hostile', () => {
  it('names the file it wanted when it is not there', async () => {
    const text = gltfNaming(built.json, 'scene.bin');
    await expect(loadScene(fileSource([file(text, 'scene.gltf')]))).rejects.toThrow(
      'glTF buffers[0] is the file "scene.bin", which could not be read: only scene.gltf was opened: open it together with its .bin buffers',
    );
    await expect(loadScene(fileSource([file(text, 'scene.gltf'), file(built.bin, 'other.bin')]))).rejects.toThrow(
      'glTF buffers[0] is the file "scene.bin", which could not be read: it was not among the 2 files opened with scene.gltf',
    );
    const folder = lay('lonely', { 'scene.gltf': text });
    await expect(loadSceneFile(join(folder, 'scene.gltf'))).rejects.toThrow(/^glTF buffers\[0\] is the file "scene\.bin", which could not be read: There is no file at '.*scene\.bin'$/);
    const { error } = await byUrl('lonely');
    expect(error?.message).toMatch(/^glTF buffers\[0\] is the file "scene\.bin", which could not be read: Could not download http:.*\/lonely\/scene\.bin: HTTP 404/);
  });

  it('refuses a buffer declared far larger than its file: past the load\'s bytes before asking for it, and otherwise once it is read', async () => {
    const json = structuredClone(built.json);
    json.buffers[0] = { uri: 'scene.bin', byteLength: 2 ** 40 };
    lay('huge', { 'scene.gltf': new TextEncoder().encode(JSON.stringify(json)), 'scene.bin': built.bin });
    const huge = await byUrl('huge');
    expect(huge.error).toBeInstanceOf(SplatLimitError);
    expect(huge.error!.message).toMatch(/^glTF buffers\[0\] \(with the bytes decoded before it\) is 1048576 MiB: more than/);
    expect(huge.asked).toEqual(['scene.gltf']);

    json.buffers[0].byteLength = built.bin.length + 1000;
    lay('longer', { 'scene.gltf': new TextEncoder().encode(JSON.stringify(json)), 'scene.bin': built.bin });
    const longer = await byUrl('longer');
    expect(longer.error).toBeInstanceOf(SplatFormatError);
    expect(longer.error!.message).toBe(`glTF buffers[0] declares ${built.bin.length + 1000} bytes, but "scene.bin" holds ${built.bin.length} of it`);
  });

  it('reads no more of a buffer file than its buffer declares (and the padding to 4 bytes)', async () => {
    const text = gltfNaming(built.json, 'scene.bin');
    const padded = new Uint8Array(built.bin.length + 3);
    padded.set(built.bin);
    expectSameCloud((await loadScene(fileSource([file(text, 'scene.gltf'), file(padded, 'scene.bin')]))).cloud, expected);
    const grown = new Uint8Array(built.bin.length + (1 << 20));
    grown.set(built.bin);
    const dropped = loadScene(fileSource([file(text, 'scene.gltf'), file(grown, 'scene.bin')]));
    await expect(dropped).rejects.toThrow(SplatLimitError);
    await expect(dropped).rejects.toThrow(`'scene.bin' is ${grown.length.toLocaleString('en-US')} bytes: more than the ${(built.bin.length + 3).toLocaleString('en-US')} it can take`);
    lay('grown', { 'scene.gltf': text, 'scene.bin': grown });
    expect((await byUrl('grown')).error).toBeInstanceOf(SplatLimitError);
  });

  it.each([
    ['../secret.bin', 'steps out of the glTF file\'s folder'],
    ['%2e%2e/secret.bin', 'steps out of the glTF file\'s folder'],
    ['sub/../../secret.bin', 'steps out of the glTF file\'s folder'],
    ['/secret.bin', 'is an absolute path'],
    ['//elsewhere.example/secret.bin', 'is a URL of its own'],
    ['https://elsewhere.example/secret.bin', 'is a URL of its own'],
    ['file:///etc/passwd', 'is a URL of its own'],
    ['C:\\secret.bin', 'is a URL of its own'],
    ['sub\\secret.bin', 'has a backslash'],
    ['scene.bin?v=2', 'has a query or fragment'],
    ['a%23b.bin', 'names a file with "?", "#" or "%" in its name'],
    ['bad%zz.bin', 'has a broken percent escape'],
  ])('refuses the uri %j, asking for nothing', async (uri, why) => {
    lay('outside', { 'scene.gltf': gltfNaming(built.json, uri), 'scene.bin': built.bin });
    const { error, asked: paths } = await byUrl('outside');
    expect(error).toBeInstanceOf(SplatFormatError);
    expect(error!.message).toContain(`glTF buffers[0]'s uri ${JSON.stringify(uri)} ${why}`);
    expect(paths).toEqual(['scene.gltf']);
  });
});
