/**
 * A Streamed SOG world in the browser as a user opens it: a link to its
 * lod-meta.json on another server. The world is made here from the 9k
 * scene (two levels, chunks of about 2,000 splats, tests/support/made-world.ts)
 * and served from a folder by a local server, which records what the page
 * asked for. The page reads the chunks in its workers, chooses the levels
 * in another, draws the world
 * under its budget, and says in the panel what it drew and loaded; the
 * finest level's chunks cannot be read (the server lacks their means):
 * each is named once in a warning, and their regions keep the coarse level.
 * Saving it as one file is refused, saying why.
 *
 * The same world served as an attacker might (under /hostile/): every
 * coarse chunk redirected to another server, and a fine chunk's image
 * that stalls after its headers. Each redirected chunk is refused by
 * name, the viewer says so once, in one message, and the world is drawn
 * from its fine level while the stalled chunk holds only its own place
 * (its giving up after CHUNK_TIMEOUT_MS is tests/unit/world-stream.test.ts's).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, useViewerPage } from './browser';
import { WORLD_NOT_SAVED } from '../../src/io/formats/save-losses';
import { scenePath } from '../shared-scenes';
import { makeWorld } from '../support/made-world';
import { serveLocally, sendFile, type LocalServer } from '../support/local-server';
import { subsetCloud } from '../support/synthetic-world';
import { inriaPly } from '../support/splat-files';
import { loadSceneFile } from '../../src/io/node-scene-source';
import type { CameraPose } from '../../src/lib/public-types';

const viewer = useViewerPage({ query: null });
let dir: string;
let server: LocalServer;
/** Another origin, where the hostile world's coarse chunks are redirected. */
let other: LocalServer;
const asked: string[] = [];
/** The finest level's chunks lack their means: their reads fail. */
const isBroken = (path: string) => /^\/world\/0_\d+\/means_l\.webp$/.test(path);
/** The hostile world's image that stalls, and its responses held open. */
const STALLED = '/world/0_0/means_l.webp';
const stalled: ServerResponse[] = [];

/** The world under /hostile/: its coarse chunks sent to the other server, one fine image stalled after its headers. */
function sendHostile(path: string, response: ServerResponse): void {
  if (/^\/world\/1_\d+\/meta\.json$/.test(path)) {
    response.writeHead(302, { Location: `${other.base}${path}` }).end();
  } else if (path === STALLED) {
    response.writeHead(200, { 'Content-Type': 'image/webp', 'Content-Length': 100_000 });
    response.write(new Uint8Array(16));
    stalled.push(response);
  } else {
    sendFile(response, join(dir, path));
  }
}

beforeAll(async () => {
  const { cloud } = await loadSceneFile(scenePath('inria_kacytran_iter7000_9k_sh3.ply'));
  // Without higher SH bands: their palette is what makes writing SOG slow.
  const plain = { ...subsetCloud(cloud, Array.from({ length: cloud.count }, (_, i) => i)), shDegree: 0 as const, sh: new Float32Array(0) };
  const coarse = subsetCloud(plain, Array.from({ length: Math.floor(plain.count / 4) }, (_, k) => 4 * k), 2);
  dir = await mkdtemp(join(tmpdir(), 'splatsort-world-'));
  makeWorld(dir, [plain, coarse], { chunkThousands: 2, chunkExtent: 1000 });
  other = await serveLocally((path, response) => {
    response.setHeader('Access-Control-Allow-Origin', '*');
    sendFile(response, join(dir, path));
  });
  server = await serveLocally((path, response) => {
    asked.push(path);
    response.setHeader('Access-Control-Allow-Origin', '*');
    if (path.startsWith('/hostile/')) sendHostile(path.slice('/hostile'.length), response);
    else if (isBroken(path)) response.writeHead(404).end();
    else sendFile(response, join(dir, path));
  });
}, BROWSER_TEST_TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await other?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a Streamed SOG world', () => {
  it('opens from a link to its lod-meta.json and draws its coarse level, names the fine chunks that cannot be read, and says in the panel what it drew, and on the progress bar what it streamed', async () => {
    // Every caption the progress bar shows, from the page's start.
    await viewer.page.addInitScript(() => {
      const seen: string[] = ((window as unknown as { __captions: string[] }).__captions = []);
      setInterval(() => {
        const bar = document.querySelector<HTMLElement>('.progress');
        const text = bar && !bar.hidden ? bar.querySelector('.progress-caption')?.textContent : null;
        if (text && seen[seen.length - 1] !== text) seen.push(text);
      }, 20);
    });
    await viewer.goto(`?url=${encodeURIComponent(`${server.base}/world/lod-meta.json`)}`);
    await viewer.tab.waitFor('the world to have all the camera asks for', 'window.__splatsort.world?.settled === true && window.__splatsort.world.drawnSplats > 0');
    // While it streamed, the bar said the chunks its view needs, loaded of needed, and the bytes; settled, it is gone.
    await viewer.tab.waitFor('the progress bar to go', "document.querySelector('.progress').hidden === true");
    const captions = await viewer.page.evaluate(() => (window as unknown as { __captions: string[] }).__captions);
    expect(captions.some((c) => /^Streaming lod-meta\.json… \d+ of \d+ chunks · [\d.]+ (B|KB|MB)$/.test(c)), captions.join(' | ')).toBe(true);
    const state = await viewer.tab.state();
    expect(state.lastError).toBeNull();
    expect(state.scene?.name).toBe('lod-meta.json');
    expect(state.world!.chunksLoaded).toBeGreaterThan(0);
    expect(state.world!.bytesLoaded).toBeGreaterThan(0);
    expect(state.world!.drawnSplats).toBeLessThanOrEqual(state.world!.budget);
    // The finest level's chunks fail (their means are missing): each is named, and their regions keep the coarse level.
    const failed = state.warnings.filter((w) => /^chunk 0_\d+\/meta\.json: /.test(w));
    expect(failed.length, state.warnings.join('; ')).toBeGreaterThan(0);
    expect(failed[0]).toMatch(/means_l\.webp/);
    // Only the index and files of its chunks were asked for, from the index's folder.
    expect(asked.every((path) => path.startsWith('/world/'))).toBe(true);
    // The levels are chosen off the page's main thread, in a worker of their own beside the chunks' two.
    expect(viewer.page.workers().map((w) => w.url()).filter((url) => /world-choice-worker/.test(url))).toHaveLength(1);
    await viewer.tab.waitForRow('splats', /^[\d,]+ drawn$/);
    await viewer.tab.waitForRow('file size', /of \d+ chunks/);
    // Drawn with the anti-aliased filter because it is a world, which the filter's row says (not that a file asked for it).
    await viewer.tab.waitForRow('filter', /^0\.3 px², compensated, for a world$/);
    // A world is not saved as one file, and saving says why, before and instead of writing.
    const saving = await viewer.tab.page.evaluate(async () => {
      const api = window.__splatsortViewer!;
      const said = (run: () => unknown) => Promise.resolve().then(run).then(() => 'saved', (error: Error) => error.message);
      return [await said(() => api.saveLosses('ply')), await said(() => api.save('ply'))];
    });
    expect(saving).toEqual([WORLD_NOT_SAVED, WORLD_NOT_SAVED]);
    // The world budget is a world's own row: it shows now, and goes with the world.
    await viewer.tab.setPanelOpen(true);
    expect(await viewer.tab.row('world budget').isVisible()).toBe(true);
    await viewer.page.setInputFiles('#file-input', { name: 'one.ply', mimeType: 'application/octet-stream', buffer: Buffer.from(inriaPly({ count: 50, shDegree: 0 })) });
    await viewer.tab.waitFor('a scene in place of the world', "window.__splatsort.world === null && !window.__splatsort.loading && window.__splatsort.sceneName === 'one.ply'");
    await viewer.tab.row('world budget').waitFor({ state: 'hidden' });
  }, BROWSER_TEST_TIMEOUT_MS);

  it('refuses chunks redirected to another server by name, says so once, and draws their leaves from the level that loaded while a chunk stalls', async () => {
    type Bound = { min: [number, number, number]; max: [number, number, number] };
    const index = JSON.parse(await readFile(join(dir, 'world', 'lod-meta.json'), 'utf8')) as { filenames: string[]; tree: { bound: Bound } };
    const coarse = index.filenames.filter((name) => name.startsWith('1_'));
    const url = `${server.base}/hostile/world/lod-meta.json`;
    // From far away every leaf wants its coarse level: only the fallback to the fine one draws anything.
    const { min, max } = index.tree.bound;
    const centre = [0, 1, 2].map((a) => (min[a]! + max[a]!) / 2) as [number, number, number];
    const size = Math.max(...[0, 1, 2].map((a) => max[a]! - min[a]!));
    const camera: CameraPose = { eye: [centre[0], centre[1], centre[2] + 100 * size], target: centre, up: [0, 1, 0], fovyDeg: 60 };
    await viewer.goto('');
    await viewer.page.evaluate(({ url, camera }) => {
      const api = window.__splatsortViewer!;
      const seen: { title: string; text: string }[] = [];
      (window as unknown as { __messagesSeen: typeof seen }).__messagesSeen = seen;
      api.on('message', (m) => void seen.push(m));
      void api.load(url, { camera });
    }, { url, camera });
    await viewer.tab.waitFor(
      'the redirected chunks refused and said, and the world drawn from its fine level',
      `window.__splatsort.world?.drawnSplats > 0 && window.__messagesSeen.some((m) => m.title.endsWith('of the world could not be read'))`,
    );
    const state = await viewer.tab.state();
    for (const name of coarse) {
      const said = state.warnings.filter((w) => w.startsWith(`chunk ${name}: `));
      expect(said, name).toEqual([`chunk ${name}: ${server.base}/hostile/world/${name} was redirected to ${other.base}/world/${name}, which is not beside lod-meta.json: only files in its folder on the same server are fetched`]);
    }
    const messages = await viewer.page.evaluate(() => (window as unknown as { __messagesSeen: { title: string; text: string }[] }).__messagesSeen);
    const failures = messages.filter((m) => m.title.endsWith('of the world could not be read'));
    expect(failures).toHaveLength(1);
    expect(failures[0]!.text).toContain(`chunk ${coarse[0]}: `);
    expect(failures[0]!.text).toMatch(/Their regions are drawn from the levels that loaded\.$/);
    // The stalled image's chunk is still in flight, its response open: the rest did not wait for it.
    expect(stalled.length).toBe(1);
    expect(stalled[0]!.destroyed).toBe(false);
    expect(state.world!.inFlight).toBeGreaterThan(0);
    expect(state.world!.settled).toBe(false);
    expect(state.lastError).toBeNull();
  }, BROWSER_TEST_TIMEOUT_MS);
});
