/**
 * A world's files (src/io/lod/world-files.ts): a real small world made by
 * splat-transform opens from a disk, a local server and a dropped folder,
 * and every chunk reads with its counts; worlds edited to lie, to lead out
 * of their folder, to name chunks that are not there or that do not decode
 * are refused with a message naming the field, node or chunk, from a
 * server and from a folder alike; a read in flight is cancelled.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DecodeRoom } from '../../src/io/decode-room';
import { SplatLimitError } from '../../src/io/load-limits';
import { openWorld, type WorldFiles } from '../../src/io/lod/world-files';
import { sogDecodedBytes } from '../../src/io/sog/decode';
import { packCloud, packedBytesPerSplat } from '../../src/scene/splat-packing';
import { isWorldIndexName } from '../../src/io/lod/world-name';
import { loadSceneFile, nodeFileSource } from '../../src/io/node-scene-source';
import { SplatFormatError } from '../../src/io/format-error';
import { folderSource, MAX_FOLDER_FILES, urlSource, type FolderEntry } from '../../src/io/web-scene-sources';
import type { SceneSource } from '../../src/io/source-bytes';
import { expectSameCloud } from '../support/clouds';
import { sendFile, serveLocally, type LocalServer } from '../support/local-server';
import { makeDefaultScene } from '../support/default-scene';
import { makeWorld } from '../support/made-world';
import { thinnedScene } from '../support/thinned-scene';

type Json = Record<string, any>;

let root: string;
/** The world's files by their path in its folder. */
let world: Map<string, Uint8Array>;
let server: LocalServer;
let base: string;
/** Another origin (another port), where the redirecting route sends a chunk. */
let other: LocalServer;
/** Paths the server was asked for. */
const requested: string[] = [];
/** Responses held open by the stalling route. */
const stalled: ServerResponse[] = [];

/** Every file under `dir`, by its '/'-separated path from `dir`. */
function filesUnder(dir: string): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  const walk = (at: string): void => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path).split('\\').join('/'), new Uint8Array(readFileSync(path)));
    }
  };
  walk(dir);
  return files;
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const json = (files: Map<string, Uint8Array>, path: string): Json => JSON.parse(text(files.get(path)!)) as Json;
const setJson = (files: Map<string, Uint8Array>, path: string, value: unknown): void => {
  files.set(path, new TextEncoder().encode(JSON.stringify(value)));
};

/** The world with `edit` done to a copy of its files, written under `name` (served at /name/) and as a dropped folder. */
function variant(name: string, edit: (files: Map<string, Uint8Array>) => void = () => {}): Record<'url' | 'folder', SceneSource> {
  const files = new Map(world);
  edit(files);
  const entries: FolderEntry[] = [];
  for (const [path, bytes] of files) {
    mkdirSync(dirname(join(root, name, path)), { recursive: true });
    writeFileSync(join(root, name, path), bytes);
    entries.push({ path: `${name}/${path}`, file: new File([bytes as Uint8Array<ArrayBuffer>], path.slice(path.lastIndexOf('/') + 1)) });
  }
  return { url: urlSource(`${base}/${name}/lod-meta.json`), folder: folderSource(entries) };
}

const readEvery = async (files: WorldFiles): Promise<number[]> => {
  const counts: number[] = [];
  for (let file = 0; file < files.index.filenames.length; file++) counts.push((await files.readChunk(file)).cloud.count);
  return counts;
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'splatsort-world-files-'));
  const fine = thinnedScene(makeDefaultScene(), 8);
  const index = makeWorld(join(root, 'made'), [fine, thinnedScene(fine, 4)], { chunkThousands: 1, chunkExtent: 1 });
  world = filesUnder(dirname(index));
  other = await serveLocally((path, response) => sendFile(response, join(root, path)));
  server = await serveLocally((path, response) => {
    requested.push(path);
    // A server that sends a chunk's meta.json to another origin, which answers with it.
    if (path === '/redirect-elsewhere/0_0/meta.json') {
      response.writeHead(302, { Location: `${other.base}/made/world/0_0/meta.json` }).end();
      return;
    }
    // A server that answers an image's headers and then sends nothing.
    if (path.startsWith('/stall/') && path.endsWith('.webp')) {
      response.writeHead(200, { 'Content-Type': 'image/webp', 'Content-Length': 100_000 });
      response.write(new Uint8Array(16));
      stalled.push(response);
      return;
    }
    sendFile(response, join(root, path));
  });
  base = server.base;
}, 120_000);

afterAll(async () => {
  await server.close();
  await other.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a world splat-transform wrote', () => {
  it('opens from a disk, a server and a dropped folder, and every chunk reads whole, as a SOG scene loads', async () => {
    const path = join(root, 'made', 'world', 'lod-meta.json');
    const sources = { disk: nodeFileSource(path), ...variant('good') };
    for (const [kind, source] of Object.entries(sources)) {
      const files = await openWorld(source);
      expect(files.name, kind).toBe('lod-meta.json');
      expect(files.index.levels).toBe(2);
      expect(files.index.filenames.length).toBeGreaterThan(2);
      const counts = await readEvery(files);
      for (let file = 0; file < counts.length; file++) {
        const chunk = files.index.filenames[file]!;
        // splat-transform writes chunks no larger than their runs need, and every chunk is used.
        expect(counts[file], `${kind} ${chunk}`).toBe(json(world, chunk).count);
        expect(counts[file]).toBe(files.usedSplats[file]);
      }
      // Each level's chunks hold its splats (each chunk is of one level).
      expect(counts.reduce((a, b) => a + b, 0)).toBe(files.index.counts.reduce((a, b) => a + b, 0));
    }
  });

  it('decodes a chunk as the SOG loader does, and counts its meta.json and images as its bytes', async () => {
    const files = await openWorld(variant('same').url);
    const chunk = files.index.filenames[1]!;
    const read = await files.readChunk(1);
    expectSameCloud(read.cloud, (await loadSceneFile(join(root, 'made', 'world', chunk))).cloud);
    const folder = chunk.slice(0, chunk.lastIndexOf('/') + 1);
    const expected = [...world].filter(([path]) => path.startsWith(folder)).reduce((sum, [, bytes]) => sum + bytes.length, 0);
    expect(read.bytes).toBe(expected);
  });

  it('knows a world\'s index by its name', () => {
    for (const name of ['lod-meta.json', 'world/LOD-META.json', 'https://example.com/w/lod-meta.json?v=2', 'C:\\w\\lod-meta.json']) expect(isWorldIndexName(name), name).toBe(true);
    for (const name of ['meta.json', 'lod-meta.json.bak', 'lod-meta.json/x']) expect(isWorldIndexName(name), name).toBe(false);
  });
});

/** Opens `source` and reads every chunk; resolves with the error it was refused with. */
async function refusal(source: SceneSource, limits?: Parameters<typeof openWorld>[1]): Promise<Error> {
  try {
    await readEvery(await openWorld(source, limits));
  } catch (error) {
    return error as Error;
  }
  throw new Error(`${source.name} was not refused`);
}

describe('a hostile world', () => {
  const cases: { name: string; edit: (files: Map<string, Uint8Array>) => void; message: RegExp; kind?: new (message: string) => Error; limits?: Parameters<typeof openWorld>[1] }[] = [
    {
      name: 'chunk-up-a-folder', message: /^lod-meta\.json: "filenames"\[0\] "\.\.\/made\/world\/0_0\/meta\.json" steps out of the index's folder/, kind: SplatFormatError,
      edit: (f) => setJson(f, 'lod-meta.json', { ...json(f, 'lod-meta.json'), filenames: ['../made/world/0_0/meta.json', ...json(f, 'lod-meta.json').filenames.slice(1)] }),
    },
    {
      name: 'chunk-elsewhere', message: /^lod-meta\.json: "filenames"\[1\] "http:\/\/elsewhere\.invalid\/1_0\/meta\.json" is a URL of its own/, kind: SplatFormatError,
      edit: (f) => {
        const index = json(f, 'lod-meta.json');
        index.filenames[1] = 'http://elsewhere.invalid/1_0/meta.json';
        setJson(f, 'lod-meta.json', index);
      },
    },
    {
      name: 'image-up-a-folder', message: /^chunk 0_0\/meta\.json: meta\.json names the image '\.\.\/1_0\/means_l\.webp', which steps out/, kind: SplatFormatError,
      edit: (f) => setJson(f, '0_0/meta.json', { ...json(f, '0_0/meta.json'), means: { ...json(f, '0_0/meta.json').means, files: ['../1_0/means_l.webp', 'means_u.webp'] } }),
    },
    {
      name: 'image-elsewhere', message: /^chunk 1_0\/meta\.json: meta\.json names the image '\/\/elsewhere\.invalid\/sh0\.webp', which is a URL of its own/, kind: SplatFormatError,
      edit: (f) => setJson(f, '1_0/meta.json', { ...json(f, '1_0/meta.json'), sh0: { ...json(f, '1_0/meta.json').sh0, files: ['//elsewhere.invalid/sh0.webp'] } }),
    },
    {
      name: 'run-past-a-chunk', message: /^lod-meta\.json: tree(\.children\[\d\])+\.lods\["0"\]: rows 0 to 268,435,457 are past what a chunk holds/, kind: SplatFormatError,
      edit: (f) => {
        const index = json(f, 'lod-meta.json');
        let node = index.tree;
        while (node.children) node = node.children[0];
        node.lods['0'].count = 2 ** 28 + 1;
        setJson(f, 'lod-meta.json', index);
      },
    },
    {
      name: 'chunk-short-of-its-runs', message: /^chunk 0_0\/meta\.json: meta\.json's count is 1,000 splats, but the index's runs in it reach 1,164/, kind: SplatFormatError,
      edit: (f) => setJson(f, '0_0/meta.json', { ...json(f, '0_0/meta.json'), count: 1000 }),
    },
    {
      name: 'chunk-past-the-limits', message: /^chunk 0_0\/meta\.json: .*1,164.*1,000/, kind: SplatLimitError,
      limits: { limits: { maxSplats: [1000, 1000, 1000, 1000], maxBytes: 2 ** 20 } },
      edit: () => {},
    },
    {
      name: 'index-past-the-limits', message: /^lod-meta\.json is [\d,]+ bytes( or more)?: more than the 2,000 it can take/, kind: SplatLimitError,
      limits: { limits: { maxSplats: [2 ** 20, 2 ** 20, 2 ** 20, 2 ** 20], maxBytes: 2000 } },
      edit: () => {},
    },
    {
      name: 'missing-chunk', message: /^chunk 9_9\/meta\.json: .*(404|not among the \d+ files dropped)/,
      edit: (f) => {
        const index = json(f, 'lod-meta.json');
        index.filenames.push('9_9/meta.json');
        let node = index.tree;
        while (node.children) node = node.children.at(-1);
        node.lods['1'].file = index.filenames.length - 1;
        setJson(f, 'lod-meta.json', index);
      },
    },
    {
      name: 'missing-image', message: /^chunk 0_1\/meta\.json: Could not read 'quats\.webp', which meta\.json names/, kind: SplatFormatError,
      edit: (f) => f.delete('0_1/quats.webp'),
    },
    {
      name: 'image-that-does-not-decode', message: /^chunk 0_2\/meta\.json: 'scales\.webp'/, kind: SplatFormatError,
      edit: (f) => f.set('0_2/scales.webp', f.get('0_2/scales.webp')!.slice(0, 60)),
    },
    {
      name: 'meta-that-is-not-json', message: /^chunk 1_0\/meta\.json: meta\.json is not valid JSON/, kind: SplatFormatError,
      edit: (f) => f.set('1_0/meta.json', f.get('1_0/meta.json')!.slice(0, 100)),
    },
  ];

  for (const c of cases) {
    it(`refuses ${c.name.replaceAll('-', ' ')} from a server and from a folder`, async () => {
      const sources = variant(c.name, c.edit);
      for (const [kind, source] of Object.entries(sources)) {
        const error = await refusal(source, c.limits);
        expect(error.message, kind).toMatch(c.message);
        if (c.kind) expect(error, kind).toBeInstanceOf(c.kind);
      }
    });
  }

  it('refuses a chunk redirected to another server, naming the chunk and where it was sent', async () => {
    const error = await refusal(variant('redirect-elsewhere').url);
    expect(error.message).toBe(
      `chunk 0_0/meta.json: ${base}/redirect-elsewhere/0_0/meta.json was redirected to ${other.base}/made/world/0_0/meta.json, ` +
      'which is not beside lod-meta.json: only files in its folder on the same server are fetched',
    );
    expect(error).toBeInstanceOf(SplatFormatError);
  });

  it('asks the server for nothing outside the world\'s folder', () => {
    const asked = requested.filter((path) => !path.startsWith('/stall/'));
    expect(asked.length).toBeGreaterThan(20);
    for (const path of asked) expect(path, path).toMatch(/^\/[a-z-]+\/(lod-meta\.json|\d_\d\/[A-Za-z_0-9]+\.(json|webp))$/);
    // Each case's files are asked for under its own name only: none reached another case's folder.
    expect(asked.filter((path) => path.includes('made'))).toEqual([]);
  });
});

describe('a dropped folder', () => {
  const entry = (path: string): FolderEntry => ({ path, file: new File(['{}'], path.slice(path.lastIndexOf('/') + 1)) });

  it('takes the shallowest lod-meta.json as the world, and reads its files by their path beside it', async () => {
    const source = folderSource([entry('w/sub/lod-meta.json'), entry('/w/lod-meta.json'), entry('w/0_0/meta.json')]);
    expect(source.name).toBe('w/lod-meta.json');
    expect(text(await source.companion('0_0/META.json', 100))).toBe('{}');
    await expect(source.companion('1_0/meta.json', 100)).rejects.toThrow(/'w\/1_0\/meta\.json' is not among the 3 files dropped/);
    for (const name of ['../w/0_0/meta.json', '/w/0_0/meta.json', '0_0/./meta.json', '0_0\\meta.json']) {
      await expect(source.companion(name, 100), name).rejects.toThrow(/which is not in its folder/);
    }
    await expect(source.companion('0_0/meta.json', 1)).rejects.toThrow(SplatLimitError);
  });

  it('refuses a folder of no world, of two side by side, or of more files than a world has', () => {
    expect(() => folderSource([entry('a/meta.json')])).toThrow(/None of the 1 files dropped is a lod-meta\.json/);
    expect(() => folderSource([entry('a/lod-meta.json'), entry('b/lod-meta.json')])).toThrow(/2 worlds side by side \(a\/lod-meta\.json, b\/lod-meta\.json\)/);
    const many = new Array<FolderEntry>(MAX_FOLDER_FILES + 1).fill(entry('x.webp'));
    expect(() => folderSource(many)).toThrow(/holds 100,001 files, more than a world has/);
  });
});

describe('the room of decoded bytes', () => {
  it('bounds the chunks decoding at once together: asked for all at once, they wait for room and all arrive', async () => {
    const index = json(world, 'lod-meta.json');
    const bounds = (index.filenames as string[]).map((chunk) => {
      const meta = json(world, chunk);
      return sogDecodedBytes(meta.count, meta.shN ? meta.shN.bands : 0);
    });
    const room = new DecodeRoom(Math.floor(1.5 * Math.max(...bounds)));
    let peak = 0;
    const taken: number[] = [];
    const files = await openWorld(variant('room').url, {
      room: async (bytes, signal) => {
        const giveBack = await room.take(bytes, signal);
        taken.push(bytes);
        peak = Math.max(peak, room.inUse);
        return giveBack;
      },
    });
    const chunks = await Promise.all(index.filenames.map((_: string, file: number) => files.readChunk(file)));
    expect(chunks.map((c) => c.cloud.count)).toEqual(index.filenames.map((chunk: string) => json(world, chunk).count));
    expect(taken.sort((a, b) => a - b)).toEqual([...bounds].sort((a, b) => a - b));
    expect(peak).toBeLessThanOrEqual(room.capacity);
    expect(room.inUse).toBe(0);
  });

  it('refuses a chunk that needs more than the whole room, naming it, before its images are asked for', async () => {
    const asked = requested.length;
    const error = await refusal(variant('no-room').url, { room: new DecodeRoom(1_000_000).take });
    expect(error.message).toMatch(/^chunk 0_0\/meta\.json: decoding it may hold [\d,]+ bytes \(its images and splats\): more than the 1,000,000 that the chunks decoding at once may hold together$/);
    expect(error).toBeInstanceOf(SplatLimitError);
    expect(requested.slice(asked)).toEqual(['/no-room/lod-meta.json', '/no-room/0_0/meta.json']);
  });
});

describe('a packed read', () => {
  it('packs a chunk\'s used splats, fewer than its count, as the pool would pack its decoded cloud, and asks room for the packed bytes too', async () => {
    // The run reaching furthest into chunk 0 ends 100 splats early: its last 100 rows are used by no leaf.
    const cut = 100;
    const source = variant('packed', (files) => {
      const index = json(files, 'lod-meta.json');
      const runs: Json[] = [];
      const walk = (node: Json): void => {
        for (const run of Object.values((node.lods ?? {}) as Record<string, Json>)) if (run.file === 0) runs.push(run);
        for (const child of (node.children ?? []) as Json[]) walk(child);
      };
      walk(index.tree);
      const last = runs.reduce((a, b) => (b.offset + b.count > a.offset + a.count ? b : a));
      expect(last.count).toBeGreaterThan(cut);
      last.count -= cut;
      // The level's count follows its runs (the parser checks it). Chunk 0 is of level 0.
      index.counts[0] -= cut;
      setJson(files, 'lod-meta.json', index);
    }).url;
    const meta = json(world, json(world, 'lod-meta.json').filenames[0]);
    const asked: number[] = [];
    const files = await openWorld(source, { room: async (bytes) => (asked.push(bytes), () => {}) });
    expect(files.usedSplats[0]).toBe(meta.count - cut);
    const cloud = (await files.readChunk(0)).cloud;
    for (const degree of [0, 3] as const) {
      const read = (await files.readPacked(0, degree))!;
      expect(read.packed).toEqual(packCloud(cloud, meta.count - cut, degree));
      expect(asked.at(-1)).toBe(sogDecodedBytes(meta.count, meta.shN ? meta.shN.bands : 0) + (meta.count - cut) * packedBytesPerSplat(degree));
    }
    // At the chunk's own degree where none is asked for; a world with no environment has none to pack.
    expect((await files.readPacked(0, null))!.packed.shDegree).toBe(cloud.shDegree);
    expect(await files.readPacked('environment', 3)).toBeNull();
  });
});

describe('a read in flight', () => {
  it('is cancelled by its signal: a stalled download, and a folder\'s read, reject with an AbortError', async () => {
    const url = await openWorld(variant('stall').url);
    const controller = new AbortController();
    const reading = url.readChunk(0, controller.signal);
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(stalled.length).toBeGreaterThan(0);

    const folder = await openWorld(variant('abort-folder').folder);
    const aborted = new AbortController();
    aborted.abort();
    await expect(folder.readChunk(0, aborted.signal)).rejects.toMatchObject({ name: 'AbortError' });
    await expect(openWorld(variant('abort-open').url, { signal: aborted.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});
