/**
 * Scene sources: a main file and the files it names, read one way from
 * Node's file system, from files opened together and from a URL; the SOG
 * meta.json written by the test writer, on disk and on a local server.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSceneFile } from '../../src/io/node-scene-source';
import { parseSplatPly } from '../../src/io/ply/parse';
import { loadScene, type LoadStage } from '../../src/io/scene-source';
import { parseSog } from '../../src/io/sog/decode';
import { fileSource } from '../../src/io/file-scene-source';
import { bufferSource, companionUrl, urlSource } from '../../src/io/web-scene-sources';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { expectSameCloud } from '../support/clouds';
import { sendFile, serveLocally, type LocalServer } from '../support/local-server';
import { writeSog, type WrittenSog } from '../support/sog-writer';
import { concat, inriaPly } from '../support/splat-files';

let dir: string;
let sog: WrittenSog;
/** The scene as parseSog reads it from memory. */
let expected: SplatCloud;
/** Bytes of meta.json and every image. */
let sogBytes: number;

const imageFiles = (): File[] => [...sog.files].map(([name, bytes]) => new File([bytes as Uint8Array<ArrayBuffer>], name));

beforeAll(async () => {
  const cloud = parseSplatPly(readFileSync(scenePath('inria_kacytran_iter7000_9k_sh3.ply')));
  sog = await writeSog(cloud, { shDegree: 1, paletteSize: 256, iterations: 1 });
  expected = await parseSog(sog.metaJson, async (name) => sog.files.get(name)!);
  dir = mkdtempSync(join(tmpdir(), 'splatsort-scene-source-'));
  mkdirSync(join(dir, 'garden'));
  writeFileSync(join(dir, 'garden', 'meta.json'), sog.metaJson);
  for (const [name, bytes] of sog.files) writeFileSync(join(dir, 'garden', name), bytes);
  sogBytes = new TextEncoder().encode(sog.metaJson).length + [...sog.files.values()].reduce((sum, b) => sum + b.length, 0);
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('loadSceneFile (Node)', () => {
  it('loads a SOG meta.json with the images beside it, counting every byte read', async () => {
    const loaded = await loadSceneFile(join(dir, 'garden', 'meta.json'));
    expectSameCloud(loaded.cloud, expected);
    expect(loaded.bytes).toBe(sogBytes);
    expect(loaded.warnings).toEqual([]);
  });

  it('names the image a meta.json lacks', async () => {
    const lonely = join(dir, 'lonely');
    mkdirSync(lonely);
    writeFileSync(join(lonely, 'meta.json'), sog.metaJson);
    await expect(loadSceneFile(join(lonely, 'meta.json'))).rejects.toThrow(/means_l\.webp.*no file at/);
  });

  it('streams a PLY within the limits, and tells of the bytes after its splats', async () => {
    const path = join(dir, 'extra.ply');
    const ply = concat(inriaPly({ count: 100 }), new Uint8Array(100));
    writeFileSync(path, ply);
    const stages = new Set<LoadStage>();
    const previews: number[] = [];
    const loaded = await loadSceneFile(path, { onProgress: ({ stage }) => stages.add(stage), onPreview: (cloud) => previews.push(cloud.count) });
    expect(loaded.cloud.count).toBe(100);
    expect(previews).toEqual([100]);
    expect(loaded.bytes).toBe(ply.length);
    expect(loaded.warnings).toEqual([expect.stringMatching(/holds 100 bytes after the 100 splats/)]);
    expect([...stages]).toEqual(['read']);
    const limits = { maxSplats: [99, 99, 99, 99] as const, maxBytes: 1 << 20 };
    await expect(loadSceneFile(path, { limits })).rejects.toThrow(/100 splats of SH degree 0: more than the 99/);
  });

  it('reads no more of a meta.json, or an image, than such a file can hold', async () => {
    const big = join(dir, 'big');
    mkdirSync(big);
    writeFileSync(join(big, 'meta.json'), ' '.repeat(2 ** 20 + 1));
    await expect(loadSceneFile(join(big, 'meta.json'))).rejects.toThrow(/meta\.json is 1,048,577 bytes: more than the 1,048,576 it can take/);
    const images = join(dir, 'big-images');
    mkdirSync(images);
    writeFileSync(join(images, 'meta.json'), sog.metaJson);
    for (const [name, bytes] of sog.files) writeFileSync(join(images, name), name === 'quats.webp' ? new Uint8Array(64 * 2 ** 20) : bytes);
    await expect(loadSceneFile(join(images, 'meta.json'))).rejects.toThrow(/quats\.webp' is 67,108,864 bytes: more than the [\d,]+ it can take/);
  });

  it('says a folder is a folder, and a missing file missing', async () => {
    await expect(loadSceneFile(join(dir, 'garden'))).rejects.toThrow(/is a folder, not a scene file/);
    await expect(loadSceneFile(join(dir, 'nothing.ply'))).rejects.toThrow(/There is no file at/);
  });
});

describe('files opened together', () => {
  it('finds meta.json among its images and reads them by name', async () => {
    const loaded = await loadScene(fileSource([...imageFiles(), new File([sog.metaJson], 'meta.json')]));
    expectSameCloud(loaded.cloud, expected);
    expect(loaded.bytes).toBe(sogBytes);
  });

  it('says what is missing: the images of a meta.json alone, or a meta.json among several files', async () => {
    await expect(loadScene(fileSource([new File([sog.metaJson], 'meta.json')])))
      .rejects.toThrow(/only meta.json was opened: open it together with its \.webp images/);
    expect(() => fileSource(imageFiles()))
      .toThrow(/files were given and none is a glTF or a SOG meta.json: open one splat file at a time, or a glTF with its buffers, or a SOG meta.json with its images/);
  });

  it('streams a single splat file, and bytes in memory, as one', async () => {
    const ply = inriaPly({ count: 10 });
    expect((await loadScene(fileSource([new File([ply as Uint8Array<ArrayBuffer>], 'a.ply')]))).cloud.count).toBe(10);
    expect((await loadScene(bufferSource(ply, 'a.ply'))).cloud.count).toBe(10);
  });
});

describe('a scene at a URL', () => {
  let server: LocalServer;
  let base: string;
  /** Another origin (another port), which serves the same files: where hostile redirects lead. */
  let other: LocalServer;
  const otherAsked: string[] = [];

  beforeAll(async () => {
    other = await serveLocally((path, response) => {
      otherAsked.push(path);
      sendFile(response, join(dir, path));
    });
    const redirect = (response: ServerResponse, to: string) => response.writeHead(302, { Location: to }).end();
    server = await serveLocally((path, response) => {
      // Redirects: the main file to the other server; a companion within its folder, out of it, to the other server.
      const moved = /^\/(moved|inside|climb|hop)\/(.+)$/.exec(path);
      if (moved) {
        const [, how, name] = moved;
        // Only the main file moved: its images are found beside where it led, not asked for here.
        if (how === 'moved') return name === 'meta.json' ? redirect(response, `${other.base}/garden/${name}`) : response.writeHead(404).end();
        if (name === 'meta.json' || name.startsWith('sub/')) return sendFile(response, join(dir, 'garden', name.replace(/^sub\//, '')));
        if (how === 'inside') return redirect(response, `/inside/sub/${name}`);
        return redirect(response, how === 'climb' ? `/garden/${name}` : `${other.base}/garden/${name}`);
      }
      // A download cut short: the first bytes of a PLY, then the connection closes, with or without a length.
      const cut = /^\/cut-(sized|unsized)\.ply$/.exec(path);
      if (cut) {
        const ply = inriaPly({ count: 20_000 });
        response.writeHead(200, { 'Content-Type': 'application/octet-stream', ...(cut[1] === 'sized' ? { 'Content-Length': ply.length } : {}) });
        response.write(ply.subarray(0, 300_000), () => response.destroy());
        return;
      }
      sendFile(response, join(dir, path));
    });
    base = server.base;
  });

  afterAll(async () => {
    await server.close();
    await other.close();
  });

  it('fetches a meta.json\'s images from beside it, reported as the download', async () => {
    const stages = new Set<LoadStage>();
    const loaded = await loadScene(urlSource(`${base}/garden/meta.json?v=1`), { onProgress: (stage) => stages.add(stage) });
    expectSameCloud(loaded.cloud, expected);
    expect(loaded.bytes).toBe(sogBytes);
    expect([...stages]).toEqual(['download']);
  });

  it('says what arrived of how much when a download stops short', async () => {
    const size = inriaPly({ count: 20_000 }).length;
    await expect(loadScene(urlSource(`${base}/cut-sized.ply`))).rejects.toThrow(
      new RegExp(`^The download of cut-sized\\.ply stopped after 300\\.0 kB of ${(size / 1e6).toFixed(1).replace('.', '\\.')} MB \\(.+\\)$`),
    );
    await expect(loadScene(urlSource(`${base}/cut-unsized.ply`))).rejects.toThrow(/^The download of cut-unsized\.ply stopped after 300\.0 kB, size unknown \(.+\)$/);
  });

  it('fetches nothing a meta.json names outside its folder or server', async () => {
    const meta = JSON.parse(sog.metaJson) as { means: { files: string[] } };
    meta.means.files[0] = '../extra.ply';
    mkdirSync(join(dir, 'escape'));
    writeFileSync(join(dir, 'escape', 'meta.json'), JSON.stringify(meta));
    await expect(loadScene(urlSource(`${base}/escape/meta.json`))).rejects.toThrow(/names '\.\.\/extra\.ply', which is not beside it/);
  });

  it('follows a redirect of the main file, and takes its files from beside where it led', async () => {
    expectSameCloud((await loadScene(urlSource(`${base}/moved/meta.json`))).cloud, expected);
    expect(otherAsked.filter((path) => path.endsWith('.webp')).length).toBe(sog.files.size);
    expect(otherAsked.every((path) => path.startsWith('/garden/'))).toBe(true);
  });

  it('refuses a file the main file names that a redirect takes out of its folder or server, as if named there', async () => {
    expectSameCloud((await loadScene(urlSource(`${base}/inside/meta.json`))).cloud, expected);
    const asked = otherAsked.length;
    const image = JSON.parse(sog.metaJson).means.files[0] as string;
    await expect(loadScene(urlSource(`${base}/climb/meta.json`))).rejects.toThrow(
      `${base}/climb/${image} was redirected to ${base}/garden/${image}, which is not beside meta.json: only files in its folder on the same server are fetched`,
    );
    await expect(loadScene(urlSource(`${base}/hop/meta.json`))).rejects.toThrow(
      `${base}/hop/${image} was redirected to ${other.base}/garden/${image}, which is not beside meta.json`,
    );
    // The redirect was followed (a browser tells nothing of one it does not follow), but the load stopped there.
    expect(otherAsked.slice(asked)).toEqual([`/garden/${image}`]);
  });

  it('resolves a companion beside the main file, in its folder or below, on its server only', () => {
    const main = 'https://example.com/scenes/garden/meta.json?v=2';
    expect(companionUrl('means_l.webp', main)).toBe('https://example.com/scenes/garden/means_l.webp');
    expect(companionUrl('images/means_l.webp', main)).toBe('https://example.com/scenes/garden/images/means_l.webp');
    for (const name of ['../means_l.webp', '/means_l.webp', 'https://elsewhere.example/means_l.webp', '//elsewhere.example/x.webp']) {
      expect(() => companionUrl(name, main), name).toThrow(/meta.json names .* which is not beside it/);
    }
    expect(() => companionUrl('means_l.webp', 'blob:https://example.com/5f2c-41')).toThrow(/not beside it/);
  });
});
